"""Every page has a way forward (issue 61, part 4), in a real headless Chromium against the broker
browser-test.sh serves on the shipped console-config.

- On a phone-sized screen the QR-code page first offers the password form (the app cannot scan
  the screen it runs on); the link leads to the same sign-in's form, which signs alice in. On a
  desktop-sized screen that block stays hidden and the link sits under the code.
- A page the broker does not have answers a page ("Page not found", 404), not JSON.
- A sign-out the broker refuses says "Sign-out problem", not "Sign-in problem".
Screenshots of each go to --screenshots (a temporary directory by default).

Usage: way_forward_test.py BASE_URL [--screenshots DIR]
"""
import argparse
import base64
import hashlib
import os
import tempfile
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from accessibility import audit
from browser_support import check, chromium

browser_support.test_name = "way-forward browser test"
REDIRECT = "http://localhost:3000/callback"
VERIFIER = "way-forward-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


def authorize_url(base, **extra):
    return f"{base}/oauth/auth?" + urllib.parse.urlencode({
        "client_id": "kid_demo", "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid",
        "state": "wf", "code_challenge": CHALLENGE, "code_challenge_method": "S256", **extra})


def shot(driver, directory, name):
    check(driver.save_screenshot(os.path.join(directory, name)), f"could not write the screenshot {name}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("--screenshots")
    arguments = parser.parse_args()
    base = arguments.base.rstrip("/")
    shots = arguments.screenshots or tempfile.mkdtemp(prefix="idc-way-forward-")
    os.makedirs(shots, exist_ok=True)
    driver = chromium()
    try:
        wait = WebDriverWait(driver, 15)
        # A phone: the QR view leads with the password form.
        driver.set_window_size(390, 844)
        driver.get(authorize_url(base))
        wait.until(ec.element_to_be_clickable((By.ID, "qr-start"))).click()
        phone_link = wait.until(ec.presence_of_element_located((By.ID, "qr-password-phone")))
        check(phone_link.is_displayed(), "on a phone the QR page does not offer the password form first")
        check(phone_link.location["y"] < driver.find_element(By.ID, "qr-code").location["y"],
              "the password link is not above the code on a phone")
        shot(driver, shots, "qr-phone.png")
        audit(driver, "the QR page on a phone")
        # A desktop: the block is hidden; the plain link stays under the code.
        driver.set_window_size(1280, 900)
        check(not driver.find_element(By.ID, "qr-password-phone").is_displayed(), "the phone block shows on a desktop")
        check(driver.find_element(By.ID, "qr-password").is_displayed(), "no password link under the code")
        driver.set_window_size(390, 844)
        phone_link.click()
        wait.until(ec.presence_of_element_located((By.ID, "password"))).send_keys("wonderland")
        driver.find_element(By.ID, "username").send_keys("alice")
        driver.find_element(By.ID, "submit").click()
        wait.until(lambda d: d.current_url.startswith(REDIRECT))
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(driver.current_url).query))
        check("code" in query and query.get("state") == "wf", f"the password form did not sign in: {driver.current_url}")

        # Signed in now: the account chooser, and where a phone's camera app lands with a QR code.
        driver.set_window_size(1280, 900)
        driver.get(authorize_url(base, prompt="select_account"))
        wait.until(ec.presence_of_element_located((By.ID, "another-account")))
        audit(driver, "the account chooser")
        driver.get(f"{base}/oauth/qr?code=00000000-0000-0000-0000-000000000000")
        wait.until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
        audit(driver, "the QR code's landing page for a phone camera")

        # A page that does not exist.
        driver.set_window_size(1280, 900)
        driver.get(f"{base}/oauth/no-such-page")
        heading = wait.until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
        check(heading.text == "Page not found", f"an unknown page shows {heading.text!r}")
        shot(driver, shots, "not-found.png")
        audit(driver, "the page-not-found page")

        # A refused sign-out.
        driver.get(f"{base}/oauth/logout?" + urllib.parse.urlencode({
            "client_id": "kid_demo", "post_logout_redirect_uri": "https://elsewhere.example/"}))
        heading = wait.until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
        check(heading.text == "Sign-out problem", f"a refused sign-out shows {heading.text!r}")
        shot(driver, shots, "sign-out-problem.png")
        audit(driver, "the sign-out problem page")
        # The sign-out question, and the login form after a refused password.
        driver.get(f"{base}/oauth/logout?client_id=kid_demo")
        wait.until(ec.presence_of_element_located((By.ID, "confirm")))
        audit(driver, "the sign-out question")
        shot(driver, shots, "sign-out-question.png")
        driver.get(authorize_url(base, prompt="login"))   # signed in above: ask again
        wait.until(ec.presence_of_element_located((By.ID, "username"))).send_keys("alice")
        driver.find_element(By.ID, "password").send_keys("wrong")
        driver.find_element(By.ID, "submit").click()
        wait.until(ec.presence_of_element_located((By.ID, "error")))
        check(driver.switch_to.active_element.get_attribute("id") == "password", "the focus is not on the password")
        audit(driver, "the login page after a refused password")
        shot(driver, shots, "login-retry.png")
    finally:
        driver.quit()
    print(f"way-forward browser test: OK (screenshots in {shots})")


if __name__ == "__main__":
    main()
