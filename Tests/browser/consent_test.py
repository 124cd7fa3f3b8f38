"""The consent screen in a real headless Chromium (docs/consent.md, issue 60).

Starts its own `idconnect serve` on a copy of the shipped console-config whose demo auth service
asks for consent (`consent: { mode: remembered }` with a logo served from another loopback
origin, a privacy policy link and a scope described in the operator's words), then, as alice:
Allow with one scope unticked (the tokens carry only what was granted), the remembered consent
(no screen for what was granted), `prompt=consent` asking again and Deny (`access_denied`),
`prompt=none` for a new scope (`consent_required`), "Remove access" on the account page (the
app's refresh token dies and the screen comes back), and a back end's permission request
(`POST /oauth/permissions`): bob following alice's link is refused, alice allows it, the back end
reads `granted` by its reference. Screenshots of the screen on a desktop and a phone go to
--screenshots (docs/images to refresh the ones docs/consent.md shows).

Usage: consent_test.py --bin PATH_TO_IDCONNECT [--screenshots docs/images]
"""
import argparse
import http.server
import os
import struct
import tempfile
import threading
import urllib.parse
import zlib

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from accessibility import audit
from account_support import APP_SECRET, CHALLENGE, CHROME, REDIRECT, Client, basic, exchange_code, free_port, serve
from account_support import add_redirect_uri
from browser_support import check, chromium, click_and_wait, notice, sign_in

browser_support.test_name = "consent browser test"

def png(width=2, height=2):
    """A small solid PNG: the app's logo, served from another origin than the broker's."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\x24\x56\xd3" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


LOGO = png()


def logo_server(image=LOGO):
    """Serves /logo.png (`image`) on a loopback port of its own; returns its origin."""
    class Logo(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(image)))
            self.end_headers()
            self.wfile.write(image)

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Logo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def with_consent(logo_origin):
    def adjust(config):
        add_redirect_uri(config, "http://localhost:3001/other", more=(
            "        consent:\n"
            "          mode: remembered\n"
            f"          logoUri: {logo_origin}/logo.png\n"
            "          policyUri: http://localhost:3000/privacy\n"
            "          scopes: { email: \"Read your work email address\" }\n"))
    return adjust


def authorize(scope, prompt=None, state="st"):
    parameters = {"client_id": "kid_demo", "redirect_uri": REDIRECT, "response_type": "code", "scope": scope,
                  "state": state, "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
    if prompt:
        parameters["prompt"] = prompt
    return "/oauth/auth?" + urllib.parse.urlencode(parameters)


def query(url):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).items()}


def answer(driver, wait, state):
    """The query of the redirect back to the app carrying `state` (nothing listens there: only the
    URL counts)."""
    wait.until(lambda d: d.current_url.startswith(REDIRECT) and query(d.current_url).get("state") == state)
    return query(driver.current_url)


def go(driver, url):
    """Opens `url` without waiting for the load: it may end at the app's redirect URI, where
    nothing listens (only the URL counts), which `driver.get` would report as an error."""
    driver.execute_script("window.location.assign(arguments[0])", url)


def on_consent_screen(driver, wait):
    wait.until(ec.presence_of_element_located((By.ID, "consent-form")))
    check("/oauth/consent/" in driver.current_url, f"not on the consent screen: {driver.current_url}")
    audit(driver, "the consent screen")


def screenshot(driver, path, width, height):
    driver.set_window_size(width, height)
    check(driver.save_screenshot(path), f"could not write the screenshot {path}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--screenshots", help="directory for consent-desktop.png and consent-phone.png")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="idc-consent-")
    shots = arguments.screenshots or work
    os.makedirs(shots, exist_ok=True)
    logo = logo_server()
    process, base = serve(arguments.bin, work, mfa=None, adjust=with_consent(logo))
    me = intruder = None
    try:
        me = chromium(CHROME)
        wait = WebDriverWait(me, 15)
        # Allow with profile unticked.
        me.get(base + authorize("openid profile email offline_access"))
        sign_in(me, wait)
        on_consent_screen(me, wait)
        check(me.find_element(By.ID, "heading").text == "Allow Demo to use your account?", "the heading does not name the app")
        check("Alice Liddell" in me.find_element(By.ID, "signed-in-as").text, "the account is not named")
        check(me.find_element(By.ID, "scope-openid").tag_name == "span", "openid can be unticked")
        check("Read your work email address" in me.find_element(By.ID, "scopes").text, "the operator's words are missing")
        check(me.execute_script("return document.getElementById('app-logo').naturalWidth") == 2,
              "the logo from the app's origin did not load (CSP)")
        check(me.find_element(By.ID, "app-policy").get_attribute("href") == "http://localhost:3000/privacy", "no privacy link")
        screenshot(me, os.path.join(shots, "consent-desktop.png"), 1280, 900)
        screenshot(me, os.path.join(shots, "consent-phone.png"), 390, 844)
        me.set_window_size(900, 900)
        me.find_element(By.ID, "scope-profile").click()
        click_and_wait(me, me.find_element(By.ID, "allow"))
        first = answer(me, wait, "st")
        check(first.get("state") == "st" and "code" in first, f"no code after Allow: {first}")
        status, tokens = exchange_code(base, first["code"])
        check(status == 200 and tokens.get("scope") == "openid email offline_access", f"tokens: {status} {tokens}")
        check(tokens.get("refresh_token"), "no refresh token for offline_access")

        # Remembered: no screen for what was granted; prompt=consent asks; Deny.
        go(me, base + authorize("openid email", state="again"))
        again = answer(me, wait, "again")
        check("code" in again, f"remembered consent was asked again: {me.current_url}")
        go(me, base + authorize("openid email", prompt="consent", state="forced"))
        on_consent_screen(me, wait)
        click_and_wait(me, me.find_element(By.ID, "deny"))
        denied = answer(me, wait, "forced")
        check(denied.get("error") == "access_denied" and denied.get("state") == "forced", f"deny: {denied}")
        go(me, base + authorize("openid profile", prompt="none", state="silent"))
        silent = answer(me, wait, "silent")
        check(silent.get("error") == "consent_required", f"prompt=none for a new scope: {silent}")

        # The account page lists the app; Remove access ends its refresh token.
        go(me, f"{base}/account?client_id=kid_demo")
        wait.until(ec.presence_of_element_located((By.ID, "consents-heading")))
        row = me.find_element(By.CSS_SELECTOR, '#consents li[data-client="kid_demo.demo-users"]')
        check("Read your work email address" in row.text, f"the allowed row: {row.text}")
        click_and_wait(me, row.find_element(By.TAG_NAME, "button"))
        check(notice(me, wait).startswith("Removed the access of Demo"), "no notice after Remove access")
        status, refreshed, _ = Client(base).call("POST", "/oauth/token", headers=basic("kid_demo", APP_SECRET), form={
            "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        check(status == 400 and refreshed.get("error") == "invalid_grant", f"refresh after Remove access: {status} {refreshed}")
        go(me, base + authorize("openid email", state="after"))
        on_consent_screen(me, wait)

        # A back end's permission request: bob is refused, alice allows, the back end reads it.
        backend = Client(base)
        status, created, _ = backend.call("POST", "/oauth/permissions", headers=basic("kid_demo", APP_SECRET), form={
            "username": "alice", "scope": "openid email", "redirect_uri": REDIRECT, "external_reference": "expense-7"})
        check(status == 201 and created.get("status") == "pending", f"permission request: {status} {created}")
        intruder = chromium(CHROME)
        intruder_wait = WebDriverWait(intruder, 15)
        intruder.get(created["authorization_url"])
        intruder_wait.until(ec.presence_of_element_located((By.ID, "username"))).clear()
        sign_in(intruder, intruder_wait, username="bob", password="builder")
        intruder_wait.until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
        check("another account" in intruder.page_source, "bob was not refused on alice's permission request")
        me.get(base + "/healthz")
        me.delete_all_cookies()
        me.get(created["authorization_url"])
        check(wait.until(ec.presence_of_element_located((By.ID, "username"))).get_attribute("value") == "alice", "the user is not filled in")
        me.find_element(By.ID, "password").send_keys("wonderland")
        me.find_element(By.ID, "submit").click()
        on_consent_screen(me, wait)
        click_and_wait(me, me.find_element(By.ID, "allow"))
        check("code" in answer(me, wait, created["state"]), "the permission's answer did not come back")
        status, read, _ = backend.call("GET", "/oauth/permissions?external_reference=expense-7", headers=basic("kid_demo", APP_SECRET))
        check(status == 200 and read.get("status") == "granted" and read.get("scope") == "openid email", f"status: {status} {read}")
        print(f"consent browser test: OK (screenshots in {shots})")
    finally:
        for driver in (me, intruder):
            if driver:
                driver.quit()
        process.kill()


if __name__ == "__main__":
    main()
