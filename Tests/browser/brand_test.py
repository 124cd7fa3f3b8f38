"""The operator's brand on the hosted pages (docs/configuration.md, "Branding"; issue 61, part 2) in a
real headless Chromium.

Starts its own `idconnect serve` on a copy of the shipped console-config whose demo auth service has
`branding` (product name, a logo served from another loopback origin, colours, "Forgot password?"
and "Help"), then checks on the login page: the logo really loads under the page's
Content-Security-Policy, the product name and "Sign in to Demo with Demo sign-in", the primary
colour on the button (computed style), the two links, the form fields' borders at 3:1 or more
against white and the text at 4.5:1 (WCAG 2.2 AA, from Chromium's computed styles), and the
broker's own favicon. Screenshots on a desktop and a phone go to --screenshots (docs/images to
refresh the ones docs/configuration.md shows).

Usage: brand_test.py --bin PATH_TO_IDCONNECT [--screenshots docs/images]
"""
import argparse
import os
import re
import tempfile
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from accessibility import audit
from account_support import add_redirect_uri, serve
from browser_support import check, chromium
from consent_test import authorize, logo_server, png

browser_support.test_name = "brand browser test"
PRIMARY = (122, 31, 31)   # #7a1f1f


def branding_lines(logo_origin, colours=True):
    """The demo auth service's `branding` (YAML lines): product name, logo, links, colours."""
    return ("        branding:\n"
            "          productName: Acme Identity\n"
            f"          logoUri: {logo_origin}/logo.png\n"
            "          forgotPasswordUri: http://localhost:3000/reset\n"
            "          helpUri: http://localhost:3000/help\n"
            + ("          colors: { primary: \"#7a1f1f\", background: \"#eef1f5\" }\n" if colours else ""))


def with_branding(logo_origin):
    def adjust(config):
        add_redirect_uri(config, "http://localhost:3001/other", more=branding_lines(logo_origin))
    return adjust


def rgb(text):
    """(r, g, b) of a computed colour `rgb(…)` / `rgba(…)`."""
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def luminance(colour):
    def channel(value):
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first, second):
    a, b = luminance(first), luminance(second)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def style(driver, element, name):
    return driver.execute_script("return getComputedStyle(arguments[0]).getPropertyValue(arguments[1])", element, name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--screenshots", help="directory for login-branded-desktop.png and login-branded-phone.png")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="idc-brand-")
    shots = arguments.screenshots or work
    os.makedirs(shots, exist_ok=True)
    process, base = serve(arguments.bin, work, mfa=None, adjust=with_branding(logo_server(png(36, 36))))
    driver = chromium()
    try:
        wait = WebDriverWait(driver, 15)
        driver.get(base + authorize("openid email"))
        logo = wait.until(ec.presence_of_element_located((By.ID, "brand-logo")))
        wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", logo))
        check(driver.find_element(By.ID, "brand-name").text == "Acme Identity", "no product name")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        check(heading == "Sign in to Demo with Demo sign-in", f"the heading says {heading!r}")
        check(driver.title == "Sign in to Demo with Demo sign-in · Acme Identity", f"the title says {driver.title!r}")
        submit = driver.find_element(By.ID, "submit")
        check(rgb(style(driver, submit, "background-color")) == PRIMARY, "the button is not in the brand's primary colour")
        check(contrast(PRIMARY, (255, 255, 255)) >= 4.5, "white on the primary colour is unreadable")
        check(driver.find_element(By.ID, "forgot-password").get_attribute("href") == "http://localhost:3000/reset", "no forgot link")
        check(driver.find_element(By.ID, "help").get_attribute("href") == "http://localhost:3000/help", "no help link")
        white = (255, 255, 255)
        for field in ("username", "password"):
            border = rgb(style(driver, driver.find_element(By.ID, field), "border-top-color"))
            check(contrast(border, white) >= 3, f"the {field} field's border has a contrast of {contrast(border, white):.2f}:1")
        for element in driver.find_elements(By.CSS_SELECTOR, "label, h1, p, a"):
            colour = rgb(style(driver, element, "color"))
            check(contrast(colour, white) >= 4.5, f"{element.text!r} has a contrast of {contrast(colour, white):.2f}:1")
        audit(driver, "the branded login page")
        driver.set_window_size(1280, 900)
        check(driver.save_screenshot(os.path.join(shots, "login-branded-desktop.png")), "no desktop screenshot")
        driver.set_window_size(390, 844)
        check(driver.save_screenshot(os.path.join(shots, "login-branded-phone.png")), "no phone screenshot")
        with urllib.request.urlopen(f"{base}/favicon.ico", timeout=10) as icon:
            check(icon.status == 200 and icon.headers["Content-Type"] == "image/png", "no favicon")
    finally:
        driver.quit()
        process.kill()
    print(f"brand browser test: OK (screenshots in {shots})")


if __name__ == "__main__":
    main()
