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
import os
import shutil
import tempfile
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from accessibility import audit
from account_support import (APP_SECRET, CHROME, FIREFOX, REDIRECT, Client, app_tokens, authorize_path, basic, bearer,
                             exchange_code, mobile_instance, serve, statement_key, token_state)
from browser_support import add_passkey_authenticator, check, chromium, click_and_wait, fail, notice, sign_in, totp

browser_support.test_name = "account browser test"


def web_sign_in(base, driver):
    """The other browser signs in to the demo app through the hosted login page; returns its tokens."""
    wait = WebDriverWait(driver, 15)
    driver.get(base + authorize_path())
    sign_in(driver, wait)
    wait.until(lambda d: d.current_url.startswith(REDIRECT))
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)["code"][0]
    status, tokens = exchange_code(base, code)
    check(status == 200, f"web code exchange: {status} {tokens}")
    return tokens


def rows(driver, attribute):
    return [row.get_attribute(attribute) for row in driver.find_elements(By.CSS_SELECTOR, f"li[{attribute}]")]


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
        audit(me, "the account page")
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
        audit(me, "the account's authenticator set-up page")
        me.find_element(By.ID, "otp").send_keys(totp(secret))
        click_and_wait(me, me.find_element(By.ID, "submit"))
        check(notice(me, wait).startswith("Authenticator app set up"), "the authenticator app was not set up")
        codes = [code.text for code in me.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
        check(len(codes) == 10, f"ten recovery codes, shown once: {codes}")
        check(me.find_element(By.ID, "recovery-left").text == "10 left", "recovery codes left")

        # A passkey with Chromium's virtual authenticator, then renamed.
        add_passkey_authenticator(me)
        click_and_wait(me, me.find_element(By.ID, "add-passkey"))
        name = wait.until(ec.presence_of_element_located((By.ID, "passkey-name")))
        audit(me, "the account's add-a-passkey page")
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
        # Nothing listens at the demo app's redirect URI: the navigation ends in a refused connection.
        me.execute_script("window.location.assign(arguments[0])", base + authorize_path())
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
