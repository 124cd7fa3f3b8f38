"""What the second factor adds to a password sign-in (docs/benchmarks.md, "Second factor"; issue 28):
users of the sample AuthLink enrol an authenticator app through the browser flow (the page's key,
a code from it), then sign in one at a time through the automated grant twice — once through an
auth service without `mfa`, once through one with `mfa: required` sending `otp` — and the p50s are
compared. Each TOTP step is accepted once per user, so every measured sign-in uses a step of its
own (the current one or the next; the broker accepts one either side). Standard library only."""

import base64
import hashlib
import hmac
import html
import http.cookiejar
import re
import statistics
import struct
import time
import urllib.error
import urllib.parse
import urllib.request

import broker

PASSWORD = broker.BENCH_PASSWORD
USERS = [f"mfa{index:03d}" for index in range(200)]


def auth_service(authlink_port):
    """The AuthLink auth service of the bench with `mfa: required` (authenticator apps only)."""
    service = broker.auth_service("authlink-mfa", authlink_port, "jwt")
    service["mfa"] = {"mode": "required", "methods": ["totp"], "issuerName": "Bench"}
    return service


def totp(secret, step):
    digest = hmac.new(secret, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments, **keywords):
        return None


class _Browser:
    """Cookies, no redirects followed: the browser flow one request at a time."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.opener = urllib.request.build_opener(_NoRedirect, urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, path, form=None):
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(path if path.startswith("http") else self.base + path, data=data)
        try:
            answer = self.opener.open(request, timeout=30)
        except urllib.error.HTTPError as error:
            answer = error
        return answer.status if hasattr(answer, "status") else answer.code, answer.headers, answer.read().decode()


def _form(page, form_id=None):
    """The action and CSRF token of the page's form — the one with `form_id` where the page has
    several (the second step also has the "Not you?" form first)."""
    tail = f' id="{form_id}"' if form_id else ""
    action = re.search(r'<form method="post" action="([^"]+)"' + tail, page)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    if not action or not token:
        raise SystemExit(f"mfa bench: no form on the page: {page[:300]!r}")
    return html.unescape(action.group(1)), html.unescape(token.group(1))


def enrol(port, username):
    """Signs `username` in through the login page and sets up an authenticator app; returns (key, step used)."""
    browser = _Browser(port)
    query = urllib.parse.urlencode({"client_id": broker.client_id("authlink-mfa"), "redirect_uri": broker.REDIRECT_URI,
                                    "response_type": "code"})
    _, _, page = browser.call("/oauth/auth?" + query)
    action, token = _form(page)
    status, headers, _ = browser.call(action, {"csrf_token": token, "username": username, "password": PASSWORD})
    _, _, page = browser.call(headers.get("Location", ""))
    secret = re.search(r'id="totp-secret">([A-Z2-7 ]+)<', page)
    if status != 303 or not secret:
        raise SystemExit(f"mfa bench: no enrolment page for {username}: {status} {page[:300]!r}")
    text = secret.group(1).replace(" ", "")
    key = base64.b32decode(text + "=" * (-len(text) % 8))
    action, token = _form(page, "otp-form")
    step = int(time.time() // 30)
    status, headers, _ = browser.call(action, {"csrf_token": token, "otp": totp(key, step)})
    _, _, page = browser.call(headers.get("Location", ""))
    action, token = _form(page, "continue-form")
    status, headers, _ = browser.call(action, {"csrf_token": token})
    if status != 302 or "code=" not in headers.get("Location", ""):
        raise SystemExit(f"mfa bench: enrolment of {username} did not finish: {status} {headers.get('Location')}")
    return key, step


def _sign_in(port, service, username, otp=None):
    """One automated-grant sign-in; returns the seconds its credential post took."""
    path = broker.temp_login_path(port, service)
    form = {"client_id": broker.client_id(service), "redirect_uri": broker.REDIRECT_URI, "response_type": "code",
            "username": username, "password": PASSWORD}
    if otp:
        form["otp"] = otp
    started = time.perf_counter()
    status, headers, data = broker.request(port, "POST", path, form=form)
    elapsed = time.perf_counter() - started
    location = headers.get("Location") or headers.get("location") or ""
    if status != 302 or "code=" not in location:
        raise SystemExit(f"mfa bench: sign-in of {username} through {service} failed: {status} {location} {data[:200]!r}")
    return elapsed


def measure(port, users):
    """Enrols `users` (each in the AuthLink's users file: broker.authlink_users_file), then signs
    each in without and with the second factor; returns the p50s (ms)."""
    enrolled = {user: enrol(port, user) for user in users}
    plain, second = [], []
    for user, (key, used) in enrolled.items():
        plain.append(_sign_in(port, "authlink", user))
        step = max(used + 1, int(time.time() // 30))
        if step > int(time.time() // 30) + 1:
            continue  # this user's next step is not open yet
        second.append(_sign_in(port, "authlink-mfa", user, otp=totp(key, step)))
    if not second:
        raise SystemExit("mfa bench: no sign-in with a second factor was measured")
    p50_plain, p50_second = statistics.median(plain) * 1000, statistics.median(second) * 1000
    return {"users": len(users), "signins_without": len(plain), "signins_with": len(second),
            "p50_without_ms": round(p50_plain, 2), "p50_with_ms": round(p50_second, 2),
            "overhead_p50_ms": round(p50_second - p50_plain, 2)}
