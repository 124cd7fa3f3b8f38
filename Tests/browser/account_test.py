"""The user's account page in a real headless Chromium (docs/account.md, issue 29).

Starts its own `idconnect serve` on a copy of the shipped console-config with `mfa: optional` and
registration of app instances, then signs alice in from three places: another browser (Chromium
with a Firefox User-Agent, through the hosted login page of the demo app), an app without a
browser (the password grant, with a refresh token), and a registered mobile instance (its own
sign-in and code exchange). In a second Chromium it opens the account page, which signs in
through the broker's own flow, sets up an authenticator app (a code computed from the key the page
shows) and a passkey (Chromium's virtual authenticator), renames the passkey, and takes the
screenshot of docs/account.md. Then, from the page: sign out the other browser, remove the app,
remove the device — after each, that one's tokens and credentials fail as SPEC §3.13 says
(`invalid_token`, `invalid_grant`, `invalid_client`) while this browser's page and its SSO keep
working. A form without its token changes nothing; the passkey is removed again.

Usage: account_test.py --bin PATH_TO_IDCONNECT [--screenshot docs/images/account-page.png]
"""
import argparse
import base64
import hashlib
import hmac
import http.cookiejar
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

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


def fail(message):
    print(f"account browser test: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


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


def configure(work):
    """The shipped console-config with mfa: optional and registration of app instances."""
    config = os.path.join(work, "config")
    shutil.copytree(os.path.join(REPO, "console-config"), config)
    path = os.path.join(config, "environments", "demo.yaml")
    with open(path) as file:
        text = file.read()
    anchor = "        qrLogin: { enabled: true, ttl: 120 }\n"
    check(anchor in text, "the demo environment changed: update account_test.py's configuration")
    text = text.replace(anchor, anchor + "        mfa: { mode: optional, issuerName: Demo }\n")
    text += ("    registration:\n"
             "      initialAccessTokens: [ ${env:ACCOUNT_TEST_IAT} ]\n"
             "      softwareStatements: { DemoApp: { jwks: ${env:ACCOUNT_TEST_JWKS} } }\n")
    with open(path, "w") as file:
        file.write(text)
    return config


def serve(binary, work, jwks):
    port = free_port()
    # WebAuthn needs a host name as the relying party: localhost, not 127.0.0.1.
    base = f"http://localhost:{port}"
    environment = dict(os.environ, ACCOUNT_TEST_IAT=IAT, ACCOUNT_TEST_JWKS=jwks)
    log = open(os.path.join(work, "serve.log"), "w")
    process = subprocess.Popen([binary, "serve", "--config", configure(work), "--port", str(port), "--issuer", base,
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


# ---------------------------------------------------------------- the browsers

def chromium(user_agent=None):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=900,900"):
        options.add_argument(argument)
    if user_agent:
        options.add_argument(f"--user-agent={user_agent}")
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver


def sign_in(driver, wait):
    wait.until(ec.presence_of_element_located((By.ID, "username")))
    driver.find_element(By.ID, "username").send_keys("alice")
    driver.find_element(By.ID, "password").send_keys("wonderland")
    driver.find_element(By.ID, "submit").click()


def web_sign_in(base, driver):
    """The other browser signs in to the demo app through the hosted login page; returns its tokens."""
    wait = WebDriverWait(driver, 15)
    query = urllib.parse.urlencode({"client_id": "kid_demo", "redirect_uri": REDIRECT, "response_type": "code",
                                    "scope": "openid", "state": "st", "code_challenge": CHALLENGE,
                                    "code_challenge_method": "S256"})
    driver.get(f"{base}/oauth/auth?{query}")
    sign_in(driver, wait)
    wait.until(lambda d: d.current_url.startswith(REDIRECT))
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)["code"][0]
    status, tokens, _ = Client(base).call("POST", "/oauth/token", headers=basic("kid_demo", APP_SECRET), form={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": VERIFIER})
    check(status == 200, f"web code exchange: {status} {tokens}")
    return tokens


def totp(secret_text, at=None):
    key = base64.b32decode(secret_text.replace(" ", "") + "=" * (-len(secret_text.replace(" ", "")) % 8))
    counter = int((at or time.time()) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000)


def notice(driver, wait):
    return wait.until(ec.presence_of_element_located((By.ID, "notice"))).text


def rows(driver, attribute):
    return [row.get_attribute(attribute) for row in driver.find_elements(By.CSS_SELECTOR, f"li[{attribute}]")]


def click_and_wait(driver, element):
    """Clicks and waits until the browser shows the next page (not this one's notice)."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 15).until(ec.staleness_of(page))


def press(driver, attribute, value, label_prefix):
    """Clicks the row's button whose accessible label starts with `label_prefix`."""
    row = driver.find_element(By.CSS_SELECTOR, f'li[{attribute}="{value}"]')
    for button in row.find_elements(By.TAG_NAME, "button"):
        if (button.get_attribute("aria-label") or button.text).startswith(label_prefix):
            click_and_wait(driver, button)
            return
    fail(f"no {label_prefix!r} button in the {attribute}={value} row")


def screenshot(driver, path):
    """The whole page, as tall as it is (Chromium's own full-page capture)."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(base64.b64decode(shot["data"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--screenshot", help="where to write the page's screenshot (docs/images/account-page.png to refresh "
                                             "the one docs/account.md shows); by default a file in the run's scratch directory")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="idc-account-")
    arguments.screenshot = arguments.screenshot or os.path.join(work, "account-page.png")
    key, jwks = statement_key(work)
    process, base = serve(arguments.bin, work, jwks)
    other = me = None
    try:
        # Alice in three places besides this browser.
        other = chromium(FIREFOX)
        web = web_sign_in(base, other)
        app = app_tokens(base)
        device_id, device_secret, registered, device = mobile_instance(base, key)

        # This browser: the account page signs in through the broker's own flow.
        me = chromium(CHROME)
        wait = WebDriverWait(me, 15)
        me.get(f"{base}/account?client_id=kid_demo")
        sign_in(me, wait)
        wait.until(ec.presence_of_element_located((By.ID, "browsers-heading")))
        check(me.current_url.startswith(f"{base}/account?client_id=kid_demo"), f"not back on the page: {me.current_url}")
        check(me.find_element(By.ID, "user-id").text == "alice", "the page does not show alice")
        labels = [row.find_element(By.TAG_NAME, "strong").text for row in me.find_elements(By.CSS_SELECTOR, "li[data-session]")]
        check(any(label.startswith("Firefox 128 on Windows") for label in labels), f"the other browser is not listed: {labels}")
        check(len(me.find_elements(By.CSS_SELECTOR, "li[data-session] .tag")) == 1, "exactly one row is 'This browser'")
        check(rows(me, "data-client") == ["kid_demo"], f"apps: {rows(me, 'data-client')}")
        check("Offline access: yes" in me.find_element(By.CSS_SELECTOR, 'li[data-client="kid_demo"]').text, "offline access not shown")
        check(rows(me, "data-device") == [device_id], f"devices: {rows(me, 'data-device')}")

        # Second factors: an authenticator app, with a code computed from the key the page shows.
        click_and_wait(me, me.find_element(By.ID, "setup-authenticator"))
        secret = wait.until(ec.presence_of_element_located((By.ID, "totp-secret"))).text
        check(me.find_element(By.ID, "totp-qr").get_attribute("src").startswith("data:image/png;base64,"), "no QR code")
        me.find_element(By.ID, "otp").send_keys(totp(secret))
        click_and_wait(me, me.find_element(By.ID, "submit"))
        check(notice(me, wait).startswith("Authenticator app set up"), "the authenticator app was not set up")
        codes = [code.text for code in me.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
        check(len(codes) == 10, f"ten recovery codes, shown once: {codes}")
        check(me.find_element(By.ID, "recovery-left").text == "10 left", "recovery codes left")

        # A passkey with Chromium's virtual authenticator, then renamed.
        me.add_virtual_authenticator(VirtualAuthenticatorOptions(
            protocol=VirtualAuthenticatorOptions.Protocol.CTAP2, transport=VirtualAuthenticatorOptions.Transport.INTERNAL,
            has_resident_key=True, has_user_verification=True, is_user_verified=True))
        click_and_wait(me, me.find_element(By.ID, "add-passkey"))
        name = wait.until(ec.presence_of_element_located((By.ID, "passkey-name")))
        name.clear()
        name.send_keys("This laptop")
        click_and_wait(me, me.find_element(By.ID, "passkey"))
        check(notice(me, wait) == "Passkey added.", "the passkey was not added")
        passkey = rows(me, "data-passkey")
        check(len(passkey) == 1, f"one passkey: {passkey}")
        field = me.find_element(By.CSS_SELECTOR, f'li[data-passkey="{passkey[0]}"] input[name="name"]')
        field.clear()
        field.send_keys("Work laptop")
        press(me, "data-passkey", passkey[0], "Rename")
        check(notice(me, wait) == "Passkey renamed to “Work laptop”.", "the passkey was not renamed")
        me.get(f"{base}/account?client_id=kid_demo")
        wait.until(ec.presence_of_element_located((By.ID, "factors-heading")))
        screenshot(me, arguments.screenshot)

        # A form without its token changes nothing (the script runs from the test, outside the page's CSP).
        me.execute_script("document.querySelector('li[data-device] input[name=csrf_token]').remove()")
        press(me, "data-device", device_id, "Remove")
        wait.until(lambda d: "no longer valid" in d.page_source)
        me.get(f"{base}/account?client_id=kid_demo")
        wait.until(ec.presence_of_element_located((By.ID, "devices-heading")))
        check(rows(me, "data-device") == [device_id], "a form without a token removed the device")

        # 1. Sign out the other browser: its tokens end, it signs in again.
        firefox = next(row for row in me.find_elements(By.CSS_SELECTOR, "li[data-session]")
                       if row.find_element(By.TAG_NAME, "strong").text.startswith("Firefox"))
        press(me, "data-session", firefox.get_attribute("data-session"), "Sign out")
        check(notice(me, wait).startswith("Signed out Firefox 128 on Windows"), "the other browser was not signed out")
        state = token_state(base, web, "kid_demo", APP_SECRET)
        check(state == (401, False, "invalid_grant"), f"the other browser's tokens: {state}")
        other.get(f"{base}/account?client_id=kid_demo")
        WebDriverWait(other, 15).until(ec.presence_of_element_located((By.ID, "username")))

        # 2. Remove the app: its tokens end.
        check(token_state(base, app, "kid_demo", APP_SECRET) == (200, True, "ok"), "the app's tokens before")
        press(me, "data-client", "kid_demo", "Remove")
        check(notice(me, wait).startswith("Removed Demo (kid_demo)"), "the app was not removed")
        state = token_state(base, app, "kid_demo", APP_SECRET)
        check(state == (401, False, "invalid_grant"), f"the app's tokens: {state}")

        # 3. Remove the device: its tokens end, its credentials are invalid_client.
        press(me, "data-device", device_id, "Remove")
        check(device_id in notice(me, wait), "the device was not removed")
        state = token_state(base, device, device_id, device_secret)
        check(state[0] == 401 and state[2] == "invalid_client", f"the device's tokens: {state}")
        status, answer, _ = Client(base).call("POST", "/oauth/token", headers=basic(device_id, device_secret),
                                              form={"grant_type": "client_credentials"})
        check(status == 401 and answer.get("error") == "invalid_client", f"the device's credentials: {status} {answer}")
        status, _, _ = Client(base).call("GET", urllib.parse.urlsplit(registered["registration_client_uri"]).path,
                                         headers=bearer(registered["registration_access_token"]))
        check(status == 401, f"the device's registration: {status}")

        # This browser keeps working: its page, and SSO into the demo app.
        me.get(f"{base}/account?client_id=kid_demo")
        wait.until(ec.presence_of_element_located((By.ID, "browsers-heading")))
        check(rows(me, "data-device") == [] and rows(me, "data-client") == [], "the removed rows are gone")
        query = urllib.parse.urlencode({"client_id": "kid_demo", "redirect_uri": REDIRECT, "response_type": "code",
                                        "scope": "openid", "state": "st", "code_challenge": CHALLENGE,
                                        "code_challenge_method": "S256"})
        # Nothing listens at the demo app's redirect URI: the navigation ends in a refused connection.
        me.execute_script("window.location.assign(arguments[0])", f"{base}/oauth/auth?{query}")
        wait.until(lambda d: d.current_url.startswith(REDIRECT))
        check("code=" in me.current_url, f"this browser's SSO: {me.current_url}")

        # The passkey goes again (the sign-in is recent).
        me.get(f"{base}/account?client_id=kid_demo")
        press(me, "data-passkey", passkey[0], "Remove")
        check(notice(me, wait).startswith("Passkey “Work laptop” removed"), "the passkey was not removed")
        check(rows(me, "data-passkey") == [], "the passkey is still listed")
    finally:
        for driver in (me, other):
            if driver:
                driver.quit()
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    print("account browser test: ok")


if __name__ == "__main__":
    main()
