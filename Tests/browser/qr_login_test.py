"""QR-code login in a real headless Chromium (docs/qr-login.md).

The browser opens the login page and follows "Sign in with a QR code"; the test screenshots the
code, decodes it with zbarimg (as a phone would read it), reads the info and confirms through the
mobile API with a token from the password grant, and the waiting page moves on by itself to the
redirect URI with a code that exchanges for the same user. A second code is refused in the app:
the page shows why and links back with error=access_denied. Usage: qr_login_test.py BASE_URL
"""
import base64
import hashlib
import json
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

BASE = sys.argv[1].rstrip("/")
REDIRECT = "http://localhost:3000/callback"
APP = ("kid_demo", "demo-app-secret-change-me")
VERIFIER = "qr-browser-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


def fail(message):
    print(f"QR browser test: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def call(method, path, form=None, token=None, body=None, basic=None):
    headers = {}
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if basic:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
    request = urllib.request.Request(BASE + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            text = answer.read().decode()
            return answer.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        return error.code, json.loads(text) if text.startswith("{") else text


def app_token():
    status, tokens = call("POST", "/oauth/token", form={"grant_type": "password", "username": "alice", "password": "wonderland",
                                                        "scope": "openid blitz_qr_auth"}, basic=APP)
    if status != 200 or "blitz_qr_auth" not in tokens.get("scope", ""):
        fail(f"password grant for the app: {status} {tokens}")
    return tokens["access_token"]


def scan(driver):
    """Screenshots the QR image and decodes it with zbarimg; returns the code it carries."""
    image = WebDriverWait(driver, 15).until(ec.presence_of_element_located((By.ID, "qr-code")))
    with tempfile.NamedTemporaryFile(suffix=".png") as shot:
        shot.write(image.screenshot_as_png)
        shot.flush()
        decoded = subprocess.run(["zbarimg", "--quiet", "--raw", shot.name], capture_output=True, text=True)
    if decoded.returncode != 0:
        fail(f"zbarimg could not read the code: {decoded.stderr}")
    payload = decoded.stdout.strip()
    if not payload.startswith(f"{BASE}/oauth/qr?code="):
        fail(f"the code does not carry {{qrUrl}}?code=: {payload!r}")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(payload).query)["code"][0]


def open_qr_page(driver, prompt=None):
    parameters = {"client_id": APP[0], "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid",
                  "state": "qr-state", "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
    if prompt:
        parameters["prompt"] = prompt
    query = urllib.parse.urlencode(parameters)
    driver.get(f"{BASE}/oauth/auth?{query}")
    WebDriverWait(driver, 15).until(ec.element_to_be_clickable((By.ID, "qr-start"))).click()
    return scan(driver)


options = webdriver.ChromeOptions()
# A person's Chrome on Linux, as the app's confirmation screen should describe it (headless
# Chromium announces itself as HeadlessChrome, which the parser rightly calls automation).
AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--user-agent={AGENT}"):
    options.add_argument(argument)
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)
try:
    token = app_token()
    code = open_qr_page(driver)
    status, info = call("GET", f"/api/v3/auth/qr/{code}", token=token)
    if status != 200 or info.get("browser") != "Chrome 120" or info.get("os") != "Linux" or info.get("device_type") != "pc" \
            or info.get("rp_id") != APP[0] or info.get("ip") != "127.0.0.1":
        fail(f"info: {status} {info}")
    status, _ = call("POST", f"/api/v3/auth/qr/{code}/confirm", token=token, body={})
    if status != 204:
        fail(f"confirm: {status}")
    # The page waits (long-poll) and moves on by itself.
    WebDriverWait(driver, 30).until(lambda d: d.current_url.startswith(REDIRECT))
    landed = urllib.parse.urlsplit(driver.current_url)
    pairs = urllib.parse.parse_qsl(landed.query)
    if not pairs or pairs[-1][0] != "code" or dict(pairs).get("state") != "qr-state":
        fail(f"redirect: {driver.current_url}")
    status, tokens = call("POST", "/oauth/token", form={"grant_type": "authorization_code", "code": pairs[-1][1],
                                                        "redirect_uri": REDIRECT, "client_id": APP[0], "code_verifier": VERIFIER})
    if status != 200:
        fail(f"code exchange: {status} {tokens}")
    status, user = call("GET", "/oauth/validate?" + urllib.parse.urlencode({"access_token": tokens["access_token"]}))
    if status != 200 or user.get("id") != "alice":
        fail(f"the browser's tokens are not alice's: {status} {user}")
    if call("POST", f"/api/v3/auth/qr/{code}/confirm", token=token, body={})[0] != 409:
        fail("a confirmed code was confirmed again")

    # A second code, refused in the app (prompt=login: the browser is signed in now).
    code = open_qr_page(driver, prompt="login")
    status, _ = call("POST", f"/api/v3/auth/qr/{code}/refuse", token=token, body={"cause_id": "mistake"})
    if status != 204:
        fail(f"refuse: {status}")
    back = WebDriverWait(driver, 30).until(ec.presence_of_element_located((By.ID, "qr-back")))
    target = urllib.parse.urlsplit(back.get_attribute("href"))
    if dict(urllib.parse.parse_qsl(target.query)).get("error") != "access_denied":
        fail(f"the way back does not say access_denied: {back.get_attribute('href')}")
finally:
    driver.quit()
print("QR browser test: OK (code decoded with zbarimg, info, confirm, the page moved on by itself, tokens for alice; refuse shown with a way back)")
