"""The hosted pages in every shipped language, in a real headless Chromium (docs/languages.md;
issue 61, parts 1 and 5).

For each of English, German, French, Spanish and Russian, starts its own `idconnect serve` on a copy
of the shipped console-config whose demo auth service has a brand, consent and `mfa: required`, and
opens a Chromium whose only language is that one (its Accept-Language). As alice it walks the login
page, the form after a wrong password, the authenticator-app enrolment, the recovery codes, the
consent screen, the account page, the sign-out question and a page that does not exist: each must
say `<html lang>` in that language and show the words the broker's own catalog gives for it
(`idconnect page-strings --language L`), and each passes the WCAG 2.2 AA audit (longer words must
not break a page). With --screenshots the German pages are saved under DIR/de/ (docs/pages.md).

Usage: language_test.py --bin PATH_TO_IDCONNECT [--screenshots docs/images] [--languages de,fr]
"""
import argparse
import os
import re
import subprocess
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from accessibility import audit
from account_support import add_redirect_uri, serve
from browser_support import check, chromium, click_and_wait, sign_in, totp
from brand_test import branding_lines
from consent_test import authorize, logo_server, png

browser_support.test_name = "language browser test"
LANGUAGES = ["de", "fr", "es", "ru", "en"]


def catalog(binary, language):
    """The broker's wording of every message in `language`, from `idconnect page-strings`."""
    text = subprocess.run([binary, "page-strings", "--language", language], check=True, capture_output=True, text=True).stdout
    words = {}
    for line in text.splitlines()[2:]:
        match = re.fullmatch(r'    "((?:[^"\\]|\\.)*)": "((?:[^"\\]|\\.)*)"', line)
        check(match, f"page-strings printed an unexpected line: {line!r}")
        unquote = lambda s: s.replace('\\"', '"').replace("\\\\", "\\")
        words[unquote(match.group(1))] = unquote(match.group(2))
    return words


def adjust(logo_origin):
    def change(config):
        add_redirect_uri(config, "http://localhost:3001/other", more=branding_lines(logo_origin, colours=False) + (
            "        consent:\n"
            "          mode: remembered\n"
            "          policyUri: http://localhost:3000/privacy\n"))
    return change


def same_page(driver, language, what):
    """The page is in `language`, and passes the audit."""
    lang = driver.execute_script("return document.documentElement.lang")
    check(lang == language, f"{what} is in {lang!r}, not {language!r}")
    audit(driver, f"{what} ({language})")


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text.strip()


def shoot(driver, shots, name, height=900):
    if shots:
        driver.set_window_size(1280, height)
        driver.execute_script("window.scrollTo(0, 0)")
        check(driver.save_screenshot(os.path.join(shots, name)), f"could not write {name}")
        driver.set_window_size(900, 900)


def walk(binary, language, logo, shots):
    words = catalog(binary, language)
    work = tempfile.mkdtemp(prefix=f"idc-lang-{language}-")
    process, base = serve(binary, work, mfa="required", adjust=adjust(logo))
    driver = chromium(language=language)
    try:
        wait = WebDriverWait(driver, 15)
        driver.get(base + authorize("openid email"))
        wait.until(ec.presence_of_element_located((By.ID, "username")))
        same_page(driver, language, "the login page")
        check(text_of(driver, "submit") == words["Sign in"], f"the button says {text_of(driver, 'submit')!r}")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        wanted = words["Sign in to {0} with {1}"].replace("{0}", "Demo").replace("{1}", "Demo sign-in")
        check(heading == wanted, f"the heading says {heading!r}, not {wanted!r}")
        shoot(driver, shots, "login-branded-desktop.png")

        sign_in(driver, wait, password="not the password")
        wait.until(ec.presence_of_element_located((By.ID, "error")))
        same_page(driver, language, "the login page after a wrong password")
        check(text_of(driver, "error") == words["The username or password is incorrect."], f"the error says {text_of(driver, 'error')!r}")
        check(driver.find_element(By.ID, "username").get_attribute("value") == "alice", "the username is gone")
        shoot(driver, shots, "login-retry.png")

        driver.find_element(By.ID, "password").send_keys("wonderland")
        click_and_wait(driver, driver.find_element(By.ID, "submit"))
        wait.until(ec.presence_of_element_located((By.ID, "totp-secret")))
        same_page(driver, language, "the enrolment page")
        wanted = words["This app requires a second factor. Set one up to continue."]
        check(text_of(driver, "mfa-message") == wanted, f"the enrolment page says {text_of(driver, 'mfa-message')!r}")
        shoot(driver, shots, "mfa-enrol.png", height=1300)
        driver.find_element(By.ID, "otp").send_keys(totp(text_of(driver, "totp-secret")))
        click_and_wait(driver, driver.find_element(By.ID, "submit"))
        wait.until(ec.presence_of_element_located((By.ID, "recovery-codes")))
        same_page(driver, language, "the recovery codes")
        check(text_of(driver, "continue") == words["Continue"], "the continue button is not in the language")
        shoot(driver, shots, "mfa-recovery-codes.png", height=1100)
        click_and_wait(driver, driver.find_element(By.ID, "continue"))

        wait.until(ec.presence_of_element_located((By.ID, "consent-form")))
        same_page(driver, language, "the consent screen")
        check(text_of(driver, "allow") == words["Allow"], f"Allow says {text_of(driver, 'allow')!r}")
        shoot(driver, shots, "consent-desktop.png")
        click_and_wait(driver, driver.find_element(By.ID, "allow"))

        driver.get(f"{base}/account?client_id=kid_demo")
        wait.until(ec.presence_of_element_located((By.ID, "sign-out-everywhere")))
        same_page(driver, language, "the account page")
        check(text_of(driver, "sign-out-everywhere") == words["Sign out everywhere"], "the account page is not in the language")
        shoot(driver, shots, "account-page.png", height=1600)

        driver.get(f"{base}/oauth/logout?client_id=kid_demo")
        wait.until(ec.presence_of_element_located((By.ID, "confirm")))
        same_page(driver, language, "the sign-out question")
        check(text_of(driver, "confirm") == words["Sign out"], "the sign-out button is not in the language")
        shoot(driver, shots, "sign-out-question.png")

        driver.get(f"{base}/no/such/page")
        same_page(driver, language, "a page not found")
        check(driver.find_element(By.TAG_NAME, "h1").text == words["Page not found"], "the not-found heading is not in the language")
        shoot(driver, shots, "not-found.png")
    finally:
        driver.quit()
        process.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--screenshots", help="directory under which de/ gets the German pages")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated (default: all five)")
    arguments = parser.parse_args()
    logo = logo_server(png(36, 36))
    languages = arguments.languages.split(",")
    for language in languages:
        shots = None
        if arguments.screenshots and language == "de":
            shots = os.path.join(arguments.screenshots, "de")
            os.makedirs(shots, exist_ok=True)
        walk(arguments.bin, language, logo, shots)
    print(f"language browser test: OK ({', '.join(languages)}: login, wrong password, enrolment, recovery codes, consent, "
          "account, sign-out question, page not found)")


if __name__ == "__main__":
    main()
