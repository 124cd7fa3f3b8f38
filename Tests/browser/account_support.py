"""The broker and the apps of account_test.py (and mfa_test.py): a broker started on a copy of the
shipped console-config (with `mfa: optional`, or `required`, and registration of app instances), and
HTTP clients that sign alice in as an app and as a registered mobile instance, and tell what her
tokens still do.
"""
import base64
import hashlib
import http.cookiejar
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

from browser_support import check, fail

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REDIRECT = "http://localhost:3000/callback"
NATIVE_REDIRECT = "com.example.demo:/oauth2redirect"
APP_SECRET = "demo-app-secret-change-me"
IAT = "account-browser-test-initial-access-token"
VERIFIER = "account-browser-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
# This browser as a person's Chrome shows itself (headless Chromium says "HeadlessChrome").
CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.4 Mobile/15E148 Safari/604.1")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# ---------------------------------------------------------------- the broker under test

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def statement_key(work):
    """An RSA key for the vendor's software statements; returns (key path, JWKS JSON)."""
    key = os.path.join(work, "statement.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    modulus = subprocess.run(["openssl", "rsa", "-in", key, "-noout", "-modulus"], check=True, capture_output=True, text=True)
    n = bytes.fromhex(modulus.stdout.strip().split("=", 1)[1])
    jwks = {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "n": b64url(n), "e": "AQAB"}]}
    return key, json.dumps(jwks)


def software_statement(key):
    header = b64url(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({
        "iss": "https://vendor.example.com", "software_id": "DemoApp", "exp": int(time.time()) + 3600,
        "redirect_uris": [NATIVE_REDIRECT], "scope": "openid native",
        "grant_types": ["authorization_code", "refresh_token", "client_credentials"]}).encode())
    signed = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=f"{header}.{payload}".encode(),
                            check=True, capture_output=True).stdout
    return f"{header}.{payload}.{b64url(signed)}"


def configure(work, mfa="optional", registration=True, adjust=None):
    """The shipped console-config with `mfa: { mode: <mfa>, issuerName: Demo }` in the demo app's
    auth service (none when `mfa` is None) and, with `registration`, registration of app
    instances; then `adjust(config directory)` when given."""
    config = os.path.join(work, "config")
    shutil.copytree(os.path.join(REPO, "console-config"), config)
    path = os.path.join(config, "environments", "demo.yaml")
    with open(path) as file:
        text = file.read()
    anchor = "        qrLogin: { enabled: true, ttl: 120 }\n"
    check(anchor in text, "the demo environment changed: update account_support.py's configuration")
    if mfa:
        text = text.replace(anchor, anchor + f"        mfa: {{ mode: {mfa}, issuerName: Demo }}\n")
    if registration:
        text += ("    registration:\n"
                 "      initialAccessTokens: [ ${env:ACCOUNT_TEST_IAT} ]\n"
                 "      softwareStatements: { DemoApp: { jwks: ${env:ACCOUNT_TEST_JWKS} } }\n")
    with open(path, "w") as file:
        file.write(text)
    if adjust:
        adjust(config)
    return config


def add_redirect_uri(config, uri, more=""):
    """The demo auth service of a copied config also redirects to `uri`; `more` (YAML lines of
    that auth service) follows it."""
    path = os.path.join(config, "environments", "demo.yaml")
    with open(path) as file:
        text = file.read()
    anchor = "          - com.example.demo:/oauth2redirect\n"
    check(anchor in text, "the demo environment changed: update account_support.add_redirect_uri")
    with open(path, "w") as file:
        file.write(text.replace(anchor, anchor + f"          - {uri}\n" + more))


def serve(binary, work, jwks=None, mfa="optional", adjust=None):
    """Starts the broker on a copy of the shipped console-config (`configure`; registration of app
    instances when `jwks`, the vendor's keys, is given; `adjust` changes the copy further);
    returns (process, base URL)."""
    port = free_port()
    # WebAuthn needs a host name as the relying party: localhost, not 127.0.0.1.
    base = f"http://localhost:{port}"
    environment = dict(os.environ, ACCOUNT_TEST_IAT=IAT, ACCOUNT_TEST_JWKS=jwks or "")
    log = open(os.path.join(work, "serve.log"), "w")
    config = configure(work, mfa=mfa, registration=jwks is not None, adjust=adjust)
    process = subprocess.Popen([binary, "serve", "--config", config, "--port", str(port), "--issuer", base,
                                "--storage", f"sqlite:{work}/db.sqlite"], stdout=log, stderr=subprocess.STDOUT, env=environment)
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1):
                return process, base
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    process.kill()
    fail("the broker did not start: " + open(os.path.join(work, "serve.log")).read()[-2000:])


# ---------------------------------------------------------------- HTTP as apps do it

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Client:
    """An HTTP client with its own cookies and User-Agent that does not follow redirects."""

    def __init__(self, base, user_agent="DemoApp/1.0 (iOS 17.4)"):
        self.base = base
        self.user_agent = user_agent
        self.opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method, path, form=None, body=None, headers=None):
        headers = dict(headers or {}, **{"User-Agent": self.user_agent})
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        url = path if path.startswith("http") else self.base + path
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            answer = self.opener.open(request, timeout=20)
        except urllib.error.HTTPError as error:
            answer = error
        text = answer.read().decode()
        parsed = json.loads(text) if text.startswith("{") else text
        return answer.status if hasattr(answer, "status") else answer.code, parsed, answer.headers


def basic(user, secret):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{secret}".encode()).decode()}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def authorize_path(state="st", prompt=None):
    """The demo app's authorization request (code flow, PKCE S256) for a browser to open."""
    parameters = {"client_id": "kid_demo", "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid",
                  "state": state, "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
    if prompt:
        parameters["prompt"] = prompt
    return "/oauth/auth?" + urllib.parse.urlencode(parameters)


def exchange_code(base, code):
    """The demo app exchanges the code its redirect URI got (client secret, PKCE): (status, answer)."""
    status, tokens, _ = Client(base).call("POST", "/oauth/token", headers=basic("kid_demo", APP_SECRET), form={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": VERIFIER})
    return status, tokens


def jwt_claims(token):
    """The payload of a JWT (signature not checked: the test reads what the broker put there)."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def unescape(text):
    for entity, character in (("&amp;", "&"), ("&#x2F;", "/"), ("&#39;", "'"), ("&quot;", '"')):
        text = text.replace(entity, character)
    return text


def login_form(html):
    action = re.search(r'<form method="post" action="([^"]+)"', html)
    token = re.search(r'name="csrf_token" value="([^"]+)"', html)
    check(action and token, f"no login form: {html[:300]}")
    return unescape(action.group(1)), unescape(token.group(1))


def mobile_instance(base, key):
    """Registers an instance of DemoApp and signs alice in with it (as the app's browser tab would)."""
    app = Client(base, IPHONE)
    status, registered, _ = app.call("POST", "/oauth/register", headers=bearer(IAT), body={
        "software_id": "DemoApp", "software_statement": software_statement(key), "device_type": "iphone",
        "redirect_uris": [NATIVE_REDIRECT]})
    check(status == 201, f"registration: {status} {registered}")
    client_id, secret = registered["client_id"], registered["client_secret"]
    query = urllib.parse.urlencode({"client_id": client_id, "redirect_uri": NATIVE_REDIRECT, "response_type": "code",
                                    "scope": "openid native", "state": "s", "code_challenge": CHALLENGE,
                                    "code_challenge_method": "S256"})
    status, page, _ = app.call("GET", f"/oauth/auth?{query}")
    action, token = login_form(page)
    status, _, headers = app.call("POST", action, form={"csrf_token": token, "username": "alice", "password": "wonderland"})
    location = headers.get("Location", "")
    check(status == 302 and location.startswith(NATIVE_REDIRECT), f"instance sign-in: {status} {location}")
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    status, tokens, _ = app.call("POST", "/oauth/token", headers=basic(client_id, secret), form={
        "grant_type": "authorization_code", "code": code, "redirect_uri": NATIVE_REDIRECT, "client_id": client_id,
        "code_verifier": VERIFIER})
    check(status == 200 and "refresh_token" in tokens, f"instance code exchange: {status} {tokens}")
    return client_id, secret, registered, tokens


def app_tokens(base):
    """The demo app without a browser: the password grant, with a refresh token (offline access)."""
    status, tokens, _ = Client(base).call("POST", "/oauth/token", headers=basic("kid_demo", APP_SECRET), form={
        "grant_type": "password", "username": "alice", "password": "wonderland", "scope": "openid"})
    check(status == 200 and "refresh_token" in tokens, f"password grant: {status} {tokens}")
    return tokens


def token_state(base, tokens, client_id, secret):
    """(validate status, introspection active, refresh answer: 'ok' or the error)."""
    client = Client(base)
    validate, _, _ = client.call("GET", "/oauth/validate", headers=bearer(tokens["access_token"]))
    _, introspection, _ = client.call("POST", "/oauth/introspect", headers=basic("kid_demo", APP_SECRET),
                                      form={"token": tokens["access_token"]})
    status, refreshed, _ = client.call("POST", "/oauth/token", headers=basic(client_id, secret), form={
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id})
    refresh = "ok" if status == 200 else refreshed.get("error") if isinstance(refreshed, dict) else str(status)
    if status == 200:
        tokens["refresh_token"] = refreshed["refresh_token"]
        tokens["access_token"] = refreshed["access_token"]
    return validate, bool(isinstance(introspection, dict) and introspection.get("active")), refresh
