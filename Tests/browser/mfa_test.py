"""The second factor (docs/mfa.md, SPEC §3.12, issue 28) in real headless Chromium.

Starts its own `idconnect serve` on a copy of the shipped console-config with
`mfa: { mode: required, issuerName: Demo }` in the demo app's auth service, then:

1. Enrolment. A browser signs alice in to the demo app (kid_demo, PKCE S256); after the password
   the enrolment page appears. Its QR code, screenshot and decoded with zbarimg as a phone would
   read it, is exactly the `otpauth://` URI of SPEC §3.12 with the key the page shows as text. A
   wrong code shows the form again with the reason in words and the same key; the code computed
   from the decoded key enrols. The ten recovery codes are shown once (not after a reload), then
   Continue goes to the app with a code whose id_token says `amr` pwd, otp, mfa.
2. Codes. A new browser enters a wrong code: the page shows the reason in words and the code
   field again, empty and focused. It then signs in with the code of the next time step (a phone
   ahead; enrolment took the current one); a third sign-in with the same code is refused in words
   (replay); a recovery code signs in, and the same recovery code in another sign-in is refused.
3. Passkey. A browser with Chromium's virtual authenticator signs in to the account page (with a
   recovery code), adds a passkey there, then signs in to the app again with prompt=login and
   the verify page's passkey button: `amr` pwd, hwk, mfa.
4. API mode. The password grant without `otp` is 400 mfa_required (in words), with a wrong or used
   code access_denied, with a recovery code 200 with `amr` otp, mfa; bob, who has no factor, is
   told to set one up in a browser.
5. Wrong codes. Six wrong codes on one page: each time the reason in words and the code field,
   focused; from the sixth the reason is the login throttle's, and the page stays.

No step waits for a TOTP time step to pass. Usage: mfa_test.py --bin PATH_TO_IDCONNECT
"""
import argparse
import base64
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.parse

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from accessibility import audit
from account_support import APP_SECRET, REDIRECT, Client, authorize_path, basic, exchange_code, jwt_claims, serve
from browser_support import (add_passkey_authenticator, check, chromium, click_and_wait, fail, notice, scan_qr, sign_in, totp,
                             totp_step)

browser_support.test_name = "MFA browser test"


# ---------------------------------------------------------------- the pages

def second_step(driver, wait, base):
    """Waits for the second-step page (/oauth/mfa/{id}) after the password."""
    wait.until(lambda d: d.current_url.startswith(f"{base}/oauth/mfa/") and d.find_elements(By.ID, "mfa-message"))
    return driver.find_element(By.ID, "mfa-message").text


def start(driver, base, prompt=None, state="st"):
    """Opens the demo app's authorization request and signs alice in with her password; returns the
    second-step page's message."""
    wait = WebDriverWait(driver, 15)
    driver.get(base + authorize_path(state=state, prompt=prompt))
    sign_in(driver, wait)
    return second_step(driver, wait, base)


def enter_code(driver, code):
    field = driver.find_element(By.ID, "otp")
    field.clear()
    field.send_keys(code)
    click_and_wait(driver, driver.find_element(By.ID, "submit"))


def refused(driver, what):
    """The page after a refused code: the form again, with the reason in words and the code field
    focused for the next try."""
    try:
        error = WebDriverWait(driver, 15).until(ec.presence_of_element_located((By.ID, "error"))).text
    except TimeoutException:
        fail(f"{what}: no page with the reason; the browser is at {driver.current_url}")
    fields = driver.find_elements(By.CSS_SELECTOR, 'form#otp-form input#otp[name="otp"]')
    check(fields and fields[0].is_displayed(), f"{what}: the code field is not shown again")
    check(len(error.split()) >= 4, f"{what}: the reason is not in words: {error!r}")
    focused = driver.execute_script("return document.activeElement && document.activeElement.id")
    check(focused == "otp", f"{what}: the focus is on {focused!r}, not on the code field")
    check(fields[0].get_attribute("value") == "", f"{what}: the refused code is still in the field")
    return error


def landed(driver, state="st"):
    """Waits for the redirect to the demo app; returns the code it carries."""
    try:
        WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(REDIRECT))
    except TimeoutException:
        page = driver.find_elements(By.TAG_NAME, "body")
        # A page's Content-Security-Policy can keep the browser from following the answer's redirect.
        blocked = [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
        fail(f"no redirect to the app: still at {driver.current_url}: {page[0].text[:600] if page else ''!r}"
             + "".join(f"\n  Chromium: {message.strip()}" for message in blocked))
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
    check("error" not in query and query.get("code") and query.get("state") == state, f"redirect: {driver.current_url}")
    return query["code"]


def amr_of(base, code, what):
    """Exchanges the code as the demo app does; returns the id_token's `amr` (checked to be alice's)."""
    status, tokens = exchange_code(base, code)
    check(status == 200 and "id_token" in tokens, f"{what}: code exchange: {status} {tokens}")
    claims = jwt_claims(tokens["id_token"])
    check(claims.get("aud") in ("kid_demo", ["kid_demo"]), f"{what}: id_token audience: {claims.get('aud')}")
    check(claims.get("sub"), f"{what}: id_token without sub")
    amr = claims.get("amr")
    check(isinstance(amr, list), f"{what}: id_token without amr: {claims}")
    return amr


def wrong_code(secret, step):
    """A 6-digit code that no step within reach of `step` has."""
    near = {totp(secret, step=s) for s in range(step - 2, step + 4)}
    return next(candidate for candidate in ("314159", "271828", "161803", "141421") if candidate not in near)


# ---------------------------------------------------------------- the parts

# Where enrol() writes its screenshots (--screenshots); None: none are taken.
SHOTS = None


def shoot(driver, name):
    """The whole page from its top (tall enough for the enrolment page), then the window as before."""
    if SHOTS:
        size = driver.get_window_size()
        driver.set_window_size(900, 1300)
        driver.execute_script("window.scrollTo(0, 0)")
        check(driver.save_screenshot(os.path.join(SHOTS, name)), f"could not write the screenshot {name}")
        driver.set_window_size(size["width"], size["height"])


def enrol(base, driver, sub_checks):
    """Part 1; returns (secret, the step enrolment accepted, the recovery codes)."""
    wait = WebDriverWait(driver, 15)
    message = start(driver, base)
    check("requires a second factor" in message, f"not the enrolment page: {message!r}")
    secret_text = driver.find_element(By.ID, "totp-secret").text
    secret = secret_text.replace(" ", "")
    check(re.fullmatch(r"[A-Z2-7]+", secret), f"the key shown is not Base32: {secret_text!r}")
    # RFC 4226 §4 R6: at least 128 bits.
    check(len(base64.b32decode(secret + "=" * (-len(secret) % 8))) >= 16, f"the key is shorter than 128 bits: {secret}")
    uri = scan_qr(driver.find_element(By.ID, "totp-qr"))
    expected = f"otpauth://totp/Demo:alice?secret={secret}&issuer=Demo&algorithm=SHA1&digits=6&period=30"
    check(uri == expected, f"the QR code carries {uri!r}, not {expected!r}")
    decoded = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(uri).query))["secret"]
    passkey = driver.find_elements(By.ID, "passkey")
    check(passkey and "passkey" in passkey[0].text.lower(), "the enrolment page does not offer a passkey (issuer on localhost)")
    audit(driver, "the second step's enrolment page")
    shoot(driver, "mfa-enrol.png")

    # A wrong code: the form again, the reason in words, the same key.
    enter_code(driver, wrong_code(decoded, totp_step()))
    error = refused(driver, "a wrong enrolment code")
    check("does not match" in error, f"the wrong enrolment code's reason: {error!r}")
    check(driver.find_element(By.ID, "totp-secret").text == secret_text, "the key changed after a wrong code")
    audit(driver, "the enrolment page after a wrong code")
    check(scan_qr(driver.find_element(By.ID, "totp-qr")) == uri, "the QR code changed after a wrong code")

    # The code computed from the key in the QR code, as an authenticator app would.
    step = totp_step()
    enter_code(driver, totp(decoded, step=step))
    wait.until(ec.presence_of_element_located((By.ID, "recovery-codes")))
    codes = [code.text for code in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes li > code")]
    check(len(codes) == 10 and len(set(codes)) == 10 and all(re.fullmatch(r"[A-Za-z0-9-]{8,}", c) for c in codes),
          f"ten distinct recovery codes: {codes}")
    check(not driver.find_elements(By.ID, "otp"), "the recovery-codes page still asks for a code")
    audit(driver, "the recovery codes page")
    shoot(driver, "mfa-recovery-codes.png")
    # Shown once: a reload shows none, and still lets the sign-in continue.
    driver.refresh()
    wait.until(ec.presence_of_element_located((By.ID, "continue")))
    check(not driver.find_elements(By.CSS_SELECTOR, "#recovery-codes code"), "the recovery codes are shown again after a reload")
    check("shown already" in driver.find_element(By.ID, "mfa-message").text, "the reload does not say the codes were shown")
    driver.find_element(By.ID, "continue").click()
    amr = amr_of(base, landed(driver), "enrolment")
    check(all(value in amr for value in ("pwd", "otp", "mfa")), f"enrolment's amr: {amr}")
    sub_checks.append(f"enrolment amr {amr}")
    return decoded, step, codes


def codes_in_browsers(base, secret, enrolled_step, codes, sub_checks):
    """Part 2: the next step's code, its replay, a recovery code and its reuse, each in a sign-in of its own."""
    driver = chromium()
    try:
        message = start(driver, base)
        check("6-digit code" in message, f"not the verify page: {message!r}")
        field = driver.find_element(By.ID, "otp")
        check(field.get_attribute("name") == "otp" and field.get_attribute("autocomplete") == "one-time-code",
              "the code input is not name=otp, autocomplete=one-time-code")
        check(not driver.find_elements(By.ID, "totp-qr"), "the verify page shows an enrolment QR code")
        check(not driver.find_elements(By.ID, "passkey"), "a passkey button without a passkey")
        # A wrong code: the error, and the code field again, focused.
        enter_code(driver, wrong_code(secret, totp_step()))
        error = refused(driver, "a wrong authenticator code")
        check("not correct" in error, f"the wrong code's reason: {error!r}")
        sub_checks.append("wrong code: error and focused field")
        # The next step's code (a phone a few seconds ahead: enrolment took the current step).
        next_code = totp(secret, step=enrolled_step + 1)
        enter_code(driver, next_code)
        amr = amr_of(base, landed(driver), "the next step's code")
        check(all(value in amr for value in ("pwd", "otp", "mfa")), f"the next step's code: amr {amr}")
    finally:
        driver.quit()

    driver = chromium()
    try:
        start(driver, base)
        enter_code(driver, next_code)
        after = totp_step()
        error = refused(driver, "a replayed code")
        check(not driver.current_url.startswith(REDIRECT), "a replayed code signed in")
        # While the step is still within the window, the reason is the replay itself.
        if after <= enrolled_step + 2:
            check("used already" in error, f"the replayed code's reason: {error!r}")
        sub_checks.append(f"replay refused ({error!r})")
        enter_code(driver, codes[0])
        amr = amr_of(base, landed(driver), "a recovery code")
        check(all(value in amr for value in ("pwd", "otp", "mfa")), f"a recovery code: amr {amr}")

        # Another sign-in (prompt=login: this browser is signed in now) with the same recovery code.
        message = start(driver, base, prompt="login")
        check("6-digit code" in message, f"prompt=login did not ask for the second factor: {message!r}")
        enter_code(driver, codes[0])
        error = refused(driver, "a used recovery code")
        check("used already" in error, f"the used recovery code's reason: {error!r}")
        sub_checks.append("recovery code single use")
    finally:
        driver.quit()


def passkey(base, codes, sub_checks):
    """Part 3: a passkey added on the account page, then used on the verify page."""
    driver = chromium()
    try:
        wait = WebDriverWait(driver, 15)
        add_passkey_authenticator(driver)
        driver.get(f"{base}/account?client_id=kid_demo")
        sign_in(driver, wait)
        second_step(driver, wait, base)
        enter_code(driver, codes[1])
        wait.until(ec.presence_of_element_located((By.ID, "factors-heading")))
        check(driver.current_url.startswith(f"{base}/account?client_id=kid_demo"), f"not back on the account page: {driver.current_url}")
        check(driver.find_element(By.ID, "recovery-left").text == "8 left", "two recovery codes used, eight left")
        click_and_wait(driver, driver.find_element(By.ID, "add-passkey"))
        wait.until(ec.presence_of_element_located((By.ID, "passkey-name")))
        click_and_wait(driver, driver.find_element(By.ID, "passkey"))
        check(notice(driver, wait) == "Passkey added.", "the passkey was not added")
        check(len(driver.find_elements(By.CSS_SELECTOR, "li[data-passkey]")) == 1, "one passkey listed")

        # A sign-in that must ask again (prompt=login), answered with the passkey.
        message = start(driver, base, prompt="login", state="pk")
        check("6-digit code" in message, f"not the verify page: {message!r}")
        buttons = [button for button in driver.find_elements(By.TAG_NAME, "button") if "passkey" in button.text.lower()]
        check(len(buttons) == 1 and buttons[0].is_displayed(), "the verify page has no passkey button")
        buttons[0].click()
        code = landed(driver, state="pk")
        amr = amr_of(base, code, "the passkey")
        check(all(value in amr for value in ("pwd", "hwk", "mfa")) and "otp" not in amr, f"the passkey's amr: {amr}")
        sub_checks.append(f"passkey amr {amr}")
    finally:
        driver.quit()


def api_mode(base, secret, codes, sub_checks):
    """Part 4: the password grant."""
    app = Client(base)

    def grant(username="alice", password="wonderland", otp=None):
        form = {"grant_type": "password", "username": username, "password": password, "scope": "openid"}
        if otp is not None:
            form["otp"] = otp
        return app.call("POST", "/oauth/token", headers=basic("kid_demo", APP_SECRET), form=form)[:2]

    status, answer = grant()
    check(status == 400 and answer.get("error") == "mfa_required" and "'otp'" in answer.get("error_description", ""),
          f"no otp: {status} {answer}")
    status, answer = grant(otp=wrong_code(secret, totp_step()))
    check(status == 400 and answer.get("error") == "access_denied" and answer.get("error_description"), f"a wrong otp: {status} {answer}")
    status, answer = grant(otp=codes[0])
    check(status == 400 and answer.get("error") == "access_denied", f"a used recovery code: {status} {answer}")
    status, answer = grant(otp=codes[2])
    check(status == 200 and "id_token" in answer, f"a recovery code: {status} {answer}")
    amr = jwt_claims(answer["id_token"]).get("amr") or []
    check(all(value in amr for value in ("pwd", "otp", "mfa")), f"the password grant's amr: {amr}")
    status, answer = grant("bob", "builder")
    check(status == 400 and answer.get("error") == "mfa_required" and f"{base}/account" in answer.get("error_description", ""),
          f"bob without a factor: {status} {answer}")
    sub_checks.append("API mode")


def wrong_codes(base, secret, sub_checks):
    """Part 5: six wrong codes on one page. Each answer is the page with the reason and the code
    field, focused; from the sixth the reason is the login throttle's (five failures for alice).
    Last, as it holds alice back for 30 s."""
    driver = chromium()
    try:
        start(driver, base)
        for attempt in range(1, 7):
            enter_code(driver, wrong_code(secret, totp_step()))
            error = refused(driver, f"wrong code {attempt}")
            expected = "not correct" if attempt <= 5 else "Too many wrong codes"
            check(expected in error, f"wrong code {attempt}: the reason is {error!r}")
            check(driver.current_url.startswith(f"{base}/oauth/mfa/"), f"wrong code {attempt}: left the page for {driver.current_url}")
        sub_checks.append("six wrong codes keep the page")
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--screenshots", help="directory for mfa-enrol.png and mfa-recovery-codes.png (docs/images)")
    arguments = parser.parse_args()
    global SHOTS
    SHOTS = arguments.screenshots
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
    began = time.monotonic()
    work = tempfile.mkdtemp(prefix="idc-mfa-")
    process, base = serve(arguments.bin, work, mfa="required")
    sub_checks = []
    try:
        driver = chromium()
        try:
            secret, step, codes = enrol(base, driver, sub_checks)
        finally:
            driver.quit()
        codes_in_browsers(base, secret, step, codes, sub_checks)
        passkey(base, codes, sub_checks)
        api_mode(base, secret, codes, sub_checks)
        wrong_codes(base, secret, sub_checks)
        log = open(os.path.join(work, "serve.log")).read()
        check(secret not in log and codes[3] not in log, "the broker's log holds the TOTP key or a recovery code")
    except SystemExit:
        print("the broker's log (end):\n" + open(os.path.join(work, "serve.log")).read()[-3000:], file=sys.stderr)
        raise
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    print(f"MFA browser test: OK in {time.monotonic() - began:.0f} s (QR decoded with zbarimg; "
          + "; ".join(sub_checks) + ")")


if __name__ == "__main__":
    main()
