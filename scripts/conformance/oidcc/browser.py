"""HTTP: the back channel and the scripted browser (cookie jar, redirects, the login form)."""

from __future__ import annotations

import html.parser
import json
import requests
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Optional

from .core import BROWSER_ACCEPT, CondError, USER_AGENT, build_url, origin_of, short, single_value_query, web_origin
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Context


@dataclass
class HttpResult:
    status: int
    headers: dict[str, str]  # lower-cased names
    body: str
    url: str
    json: Any = None
    json_error: Optional[str] = None

    @staticmethod
    def of(resp: requests.Response) -> "HttpResult":
        headers = {k.lower(): v for k, v in resp.headers.items()}
        r = HttpResult(resp.status_code, headers, resp.text, resp.url)
        if r.body:
            try:
                r.json = json.loads(r.body)
            except ValueError as e:
                r.json_error = str(e)
        return r


class BackChannel:
    def __init__(self, verify: Any, timeout: float):
        self.verify = verify
        self.timeout = timeout

    def _session(self) -> requests.Session:
        s = requests.Session()
        s.verify = self.verify
        s.trust_env = False
        s.headers["User-Agent"] = "oidc-conformance-port/1.0 (back channel)"
        return s

    def get(self, url: str, headers: Optional[dict] = None) -> HttpResult:
        with self._session() as s:
            return HttpResult.of(s.get(url, headers=headers or {}, timeout=self.timeout, allow_redirects=True))

    def post(self, url: str, data: Any = None, headers: Optional[dict] = None) -> HttpResult:
        with self._session() as s:
            return HttpResult.of(s.post(url, data=data, headers=headers or {}, timeout=self.timeout,
                                        allow_redirects=False))


class FormParser(html.parser.HTMLParser):
    """Collects forms (action, method, inputs) and the visible text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self.text: list[str] = []
        self.title = ""
        self._in_title = False
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = {k: (v or "") for k, v in attrs}
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "method": a.get("method", "get").lower(), "inputs": []})
        elif tag == "input" and self.forms:
            self.forms[-1]["inputs"].append({"name": a.get("name", ""), "type": a.get("type", "text").lower(),
                                             "value": a.get("value", "")})
        elif tag == "title":
            self._in_title = True
        elif tag in ("style", "script"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in ("style", "script") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip and data.strip():
            self.text.append(data.strip())


@dataclass
class Page:
    """An answer of the OP that the browser displays (no redirect back to the client)."""
    status: int
    url: str
    content_type: str
    body: str
    forms: list = field(default_factory=list)
    text: str = ""
    title: str = ""

    @property
    def login_form(self) -> Optional[dict]:
        for f in self.forms:
            if any(i["type"] == "password" for i in f["inputs"]):
                return f
        return None

    @property
    def is_login_page(self) -> bool:
        return self.login_form is not None

    def describe(self) -> str:
        kind = "login page" if self.is_login_page else "page"
        return f"{kind} (HTTP {self.status}, {self.content_type or 'no content-type'}, title '{self.title.strip()}'): {short(self.text, 200)}"


@dataclass
class Callback:
    """The OP redirected the browser out of the OP (normally to the client's redirect_uri)."""
    url: str
    query: dict[str, str]
    fragment: str
    posted: bool = False  # a form_post answer: the fields came in a POST body


@dataclass
class Navigation:
    final: Any  # Page | Callback
    login_pages_shown: int = 0
    first_page: Optional[Page] = None  # the first page the OP displayed, if any
    logged_in: bool = False


class Browser:
    """A user agent with one cookie jar.  Follows redirects inside the OP, stops at the first
    redirect that leaves the OP (the client's redirect_uri) and reads its Location header."""

    def __init__(self, ctx: "Context"):
        self.ctx = ctx
        self.s = requests.Session()
        self.s.verify = ctx.verify
        self.s.trust_env = False
        self.s.headers["User-Agent"] = USER_AGENT
        self.s.headers["Accept"] = BROWSER_ACCEPT
        self.s.headers["Accept-Language"] = "en"

    def is_op(self, url: str) -> bool:
        return origin_of(url) in self.ctx.op_origins

    def _page(self, resp: requests.Response) -> Page:
        ctype = resp.headers.get("Content-Type", "")
        p = FormParser()
        if "html" in ctype.lower() or resp.text.lstrip().startswith("<"):
            try:
                p.feed(resp.text)
            except Exception:
                pass
        text = " ".join(p.text) if p.text else resp.text
        return Page(resp.status_code, resp.url, ctype, resp.text, p.forms, text, p.title)

    def _follow(self, method: str, url: str, data: Any = None, extra_headers: Optional[dict] = None) -> Any:
        hops = 0
        while True:
            hops += 1
            if hops > 20:
                raise CondError(f"too many redirects (last: {url})")
            headers = dict(extra_headers or {})
            if method == "POST" and isinstance(data, (str, bytes)):
                headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
            resp = self.s.request(method, url, data=data, headers=headers, allow_redirects=False,
                                  timeout=self.ctx.timeout)
            if resp.status_code in (301, 302, 303, 307, 308) and "Location" in resp.headers:
                target = urllib.parse.urljoin(url, resp.headers["Location"])
                if not self.is_op(target):
                    frag = urllib.parse.urlsplit(target).fragment
                    return Callback(target, single_value_query(target), frag)
                if resp.status_code in (307, 308):
                    url = target  # method and body kept
                else:
                    method, url, data = "GET", target, None
                continue
            page = self._page(resp)
            posted = self._form_post(page) if self.ctx.response_mode == "form_post" else None
            return posted or page

    def _form_post(self, page: Page) -> Optional[Callback]:
        """A form_post answer (OAuth 2.0 Form Post Response Mode): a page whose one form posts to
        a URL outside the OP. The suite's browser runs the page's script, which submits it to the
        suite's redirect endpoint; the fields are the authorization response."""
        if len(page.forms) != 1 or page.forms[0]["method"] != "post":
            return None
        form = page.forms[0]
        action = urllib.parse.urljoin(page.url, form["action"] or page.url)
        if self.is_op(action):
            return None
        fields = {i["name"]: i["value"] for i in form["inputs"] if i["name"] and i["type"] == "hidden"}
        return Callback(action, fields, "", posted=True)

    def navigate(self, url: str, method: str = "GET", auto_login: bool = True) -> Navigation:
        """Opens an authorization URL as a browser.  GET: the URL as is.  POST: as the suite's
        BrowserControl does it, the query string becomes an x-www-form-urlencoded body."""
        if method == "POST":
            # BrowserControl.goToUrl(url, null, "POST") builds `new WebRequest(url, HttpMethod.POST)`:
            # HtmlUnit's WebRequest(URL) constructor sets `Accept: */*` (not the browser's HTML
            # accept header a page load or a form submission sends), and the raw query is the body.
            parts = urllib.parse.urlsplit(url)
            base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
            result = self._follow("POST", base, data=parts.query, extra_headers={"Accept": "*/*"})
        else:
            result = self._follow("GET", url)
        nav = Navigation(result)
        if isinstance(result, Page):
            nav.first_page = result
        while auto_login and isinstance(nav.final, Page) and nav.final.is_login_page:
            nav.login_pages_shown += 1
            if nav.login_pages_shown > 2:
                break  # the OP keeps showing the form (wrong credentials?)
            nav.final = self.login(nav.final)
            nav.logged_in = True
        return nav

    def login(self, page: Page) -> Any:
        form = page.login_form
        assert form is not None
        action = urllib.parse.urljoin(page.url, form["action"] or page.url)
        fields: list[tuple[str, str]] = []
        user_field = None
        for i in form["inputs"]:
            if not i["name"]:
                continue
            if i["type"] == "password":
                fields.append((i["name"], self.ctx.password))
            elif i["type"] in ("text", "email") and user_field is None:
                user_field = i["name"]
                fields.append((i["name"], self.ctx.username))
            elif i["type"] in ("hidden",):
                fields.append((i["name"], i["value"]))
            elif i["type"] in ("submit",) and i["value"]:
                fields.append((i["name"], i["value"]))
        body = urllib.parse.urlencode(fields)
        if form["method"] == "post":
            return self._follow("POST", action, data=body, extra_headers={"Origin": web_origin(page.url)})
        return self._follow("GET", build_url(action, fields))

    def submit(self, page: Page, form: dict) -> Any:
        """The person presses a form's button (a confirmation page): its hidden fields and named
        submit button go to its action with this browser's cookies; redirects are followed as above."""
        action = urllib.parse.urljoin(page.url, form["action"] or page.url)
        fields = [(i["name"], i["value"]) for i in form["inputs"] if i["name"] and i["type"] in ("hidden", "submit")]
        if form["method"] == "post":
            return self._follow("POST", action, data=urllib.parse.urlencode(fields),
                                extra_headers={"Origin": web_origin(page.url)})
        return self._follow("GET", build_url(action, fields))
