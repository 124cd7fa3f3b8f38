"""What the browser tests that start their own broker share (account_test.py, mfa_test.py): a
headless Chromium, the hosted login form, navigation that waits for the next page, TOTP codes as an
authenticator app computes them, Chromium's virtual passkey authenticator, reading a QR code with
zbarimg as a phone would, and failures reported under the running test's name.
"""
import base64
import hashlib
import hmac
import struct
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

# The running test sets its own name, which its failures are reported under.
test_name = "browser test"


def fail(message):
    print(f"{test_name}: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def chromium(user_agent=None, language=None):
    """Headless Chromium; `language` (a tag such as `de`) is what it asks for in Accept-Language."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=900,900"):
        options.add_argument(argument)
    if user_agent:
        options.add_argument(f"--user-agent={user_agent}")
    if language:
        options.add_argument(f"--lang={language}")
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver


def add_passkey_authenticator(driver):
    """A platform authenticator (CTAP2, internal, resident keys, user verification) that says yes."""
    driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=VirtualAuthenticatorOptions.Protocol.CTAP2, transport=VirtualAuthenticatorOptions.Transport.INTERNAL,
        has_resident_key=True, has_user_verification=True, is_user_verified=True))


def sign_in(driver, wait, username="alice", password="wonderland"):
    """Fills in and submits the hosted login form."""
    wait.until(ec.presence_of_element_located((By.ID, "username")))
    driver.find_element(By.ID, "username").send_keys(username)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "submit").click()


def totp_step(at=None):
    """The RFC 6238 time step (30 s) of `at` (default: now)."""
    return int((time.time() if at is None else at) // 30)


def totp(secret_text, at=None, step=None):
    """The 6-digit SHA-1 code of `secret_text` (Base32, spaces allowed) for `step`, or the step of `at` (default: now)."""
    compact = secret_text.replace(" ", "")
    key = base64.b32decode(compact + "=" * (-len(compact) % 8))
    counter = totp_step(at) if step is None else step
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000)


def notice(driver, wait):
    return wait.until(ec.presence_of_element_located((By.ID, "notice"))).text


def click_and_wait(driver, element):
    """Clicks and waits until the browser shows the next page (not this one's notice)."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()

    def left(_):
        # Chromium sometimes answers a look at the old page's node mid-navigation with "Node with
        # given id does not belong to the document" instead of a stale reference: gone all the same.
        try:
            page.is_enabled()
            return False
        except WebDriverException:
            return True
    WebDriverWait(driver, 15).until(left)


def scan_qr(element):
    """Screenshots a QR code image element and decodes it with zbarimg; returns the text it carries."""
    with tempfile.NamedTemporaryFile(suffix=".png") as shot:
        shot.write(element.screenshot_as_png)
        shot.flush()
        decoded = subprocess.run(["zbarimg", "--quiet", "--raw", shot.name], capture_output=True, text=True)
    check(decoded.returncode == 0, f"zbarimg could not read the QR code: {decoded.stderr.strip()}")
    return decoded.stdout.strip()
