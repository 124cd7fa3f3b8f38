"""Drives the hosted login page in a real headless Chromium (docs/protocol.md, "GET /oauth/auth",
issue 3 item 8).

Opens /oauth/auth, types a wrong password and sees the message (the username kept, the focus on
the password), types the right one, lands on
the redirect_uri with a code (last query parameter), exchanges it with PKCE, and checks the
tokens. Usage: login_test.py BASE_URL
"""
import base64
import hashlib
import json
import sys
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

BASE = sys.argv[1].rstrip("/")
REDIRECT = "http://localhost:3000/callback"
VERIFIER = "browser-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


def fail(message):
    print(f"browser test: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


options = webdriver.ChromeOptions()
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
    options.add_argument(argument)
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)
try:
    query = urllib.parse.urlencode({
        "client_id": "kid_demo", "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid email",
        "state": "browser-state", "nonce": "browser-nonce", "code_challenge": CHALLENGE, "code_challenge_method": "S256",
    })
    driver.get(f"{BASE}/oauth/auth?{query}")
    wait = WebDriverWait(driver, 15)
    wait.until(ec.presence_of_element_located((By.ID, "username")))

    driver.find_element(By.ID, "username").send_keys("alice")
    driver.find_element(By.ID, "password").send_keys("not-the-password")
    driver.find_element(By.ID, "submit").click()
    error = wait.until(ec.presence_of_element_located((By.ID, "error")))
    if "incorrect" not in error.text:
        fail(f"no clear message after a wrong password: {error.text!r}")

    # A way forward: the username stays and the focus is on the password (typed straight away).
    if driver.find_element(By.ID, "username").get_attribute("value") != "alice":
        fail("the username was not kept after a wrong password")
    focused = driver.switch_to.active_element
    if focused.get_attribute("id") != "password" or focused.get_attribute("aria-describedby") != "error":
        fail(f"the focus is not on the password after a wrong password: {focused.get_attribute('id')!r}")
    focused.send_keys("wonderland")
    driver.find_element(By.ID, "submit").click()
    wait.until(lambda d: d.current_url.startswith(REDIRECT))
    landed = driver.current_url
finally:
    driver.quit()

parsed = urllib.parse.urlparse(landed)
params = urllib.parse.parse_qsl(parsed.query)
if not params or params[-1][0] != "code":
    fail(f"code is not the last parameter: {landed}")
if dict(params).get("state") != "browser-state":
    fail("state not echoed")

body = urllib.parse.urlencode({
    "grant_type": "authorization_code", "code": params[-1][1], "redirect_uri": REDIRECT,
    "client_id": "kid_demo", "code_verifier": VERIFIER,
}).encode()
with urllib.request.urlopen(urllib.request.Request(f"{BASE}/oauth/token", data=body), timeout=10) as response:
    tokens = json.load(response)
for field in ("access_token", "id_token", "refresh_token"):
    if field not in tokens:
        fail(f"token response lacks {field}")
claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
if claims.get("nonce") != "browser-nonce" or claims.get("email") != "alice@example.org":
    fail(f"unexpected id_token claims {claims}")
print("browser test: OK (headless Chromium: wrong password message, sign-in, redirect with code last, PKCE exchange)")
