"""The device authorization grant's rows (docs/device-grant.md): a device asking for codes, and a
device's poll that gets its tokens (each approved device code once). The approvals are made before
the row by browsers that signed in once (SSO) and then, per device, open the confirmation, press
Continue and come back through the callback."""
import html
import http.client
import json
import re
import threading
import urllib.parse

import broker
import load

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


class Browser:
    """Keeps the broker's cookies (several Set-Cookie headers per answer)."""

    def __init__(self, port):
        self.port, self.cookies = port, {}

    def request(self, method, path, form=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        body = None
        if form is not None:
            body, headers = urllib.parse.urlencode(form), {**headers, **FORM}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read().decode()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.split(";")[0].partition("=")
                self.cookies[key] = rest
        connection.close()
        return response.status, response.getheader("Location") or "", data

    def sign_in(self):
        query = urllib.parse.urlencode({"client_id": broker.APP_KEY, "redirect_uri": broker.REDIRECT_URI, "response_type": "code"})
        status, _, page = self.request("GET", "/oauth/auth?" + query)
        action = re.search(r'<form method="post" action="([^"]+)"', page)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        if status != 200 or not action or not token:
            raise SystemExit(f"device bench: no login form: {status} {page[:200]!r}")
        status, location, _ = self.request("POST", urllib.parse.urlparse(html.unescape(action.group(1))).path,
                                           {"csrf_token": token.group(1), "username": "alice", "password": "alicepw"})
        if status != 302 or "code=" not in location:
            raise SystemExit(f"device bench: sign-in failed: {status} {location}")

    def approve(self, user_code):
        status, _, page = self.request("GET", "/oauth/device?" + urllib.parse.urlencode({"user_code": user_code}))
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        if status != 200 or not token:
            raise SystemExit(f"device bench: no confirmation: {status} {page[:200]!r}")
        status, location, _ = self.request("POST", "/oauth/device/confirm", {
            "csrf_token": token.group(1), "user_code": user_code.replace("-", ""), "decision": "allow"})
        if status not in (302, 303) or "/oauth/device/callback" not in location:
            raise SystemExit(f"device bench: Continue did not come straight back: {status} {location}")
        status, _, page = self.request("GET", urllib.parse.urlparse(location)._replace(scheme="", netloc="").geturl())
        if status != 200 or "Device signed in" not in page:
            raise SystemExit(f"device bench: the callback did not approve: {status} {page[:200]!r}")


def start(port):
    status, _, data = broker.request(port, "POST", "/oauth/device_authorization", headers={"Authorization": broker.basic_header()},
                                     form={"client_id": broker.APP_KEY, "scope": "openid"})
    if status != 200:
        raise SystemExit(f"device authorization failed: {status} {data[:200]!r}")
    return json.loads(data)


def rows(port, common, pool_size, prepare):
    basic = {"Authorization": broker.basic_header()}
    asking = load.run_wrk("device authorization (new codes)", **common, method="POST", path="/oauth/device_authorization",
                          headers={**basic, **FORM}, body=f"client_id={broker.APP_KEY}&scope=openid")
    local = threading.local()

    def make(_):
        if not hasattr(local, "browser"):
            local.browser = Browser(port)
            local.browser.sign_in()
        answer = start(port)
        local.browser.approve(answer["user_code"])
        return answer["device_code"]

    codes = prepare(pool_size, make)
    poll = load.run_wrk("device poll → tokens", **common, method="POST", path="/oauth/token", headers={**basic, **FORM}, pool=codes,
                        body=f"grant_type={GRANT_TYPE}&device_code={{}}")
    return [asking, poll]
