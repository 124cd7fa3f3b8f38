"""Response modes in a real headless Chromium (issue 59 point 4; docs/protocol.md, "Response modes").

Starts its own `idconnect serve` on a copy of the shipped console-config whose demo auth service
also redirects to a small receiver on another loopback port. The receiver answers a POST to its
callback with a page that shows the posted fields, and a GET with a page that shows the URL's
query and fragment (a fragment never reaches a server).

- `response_mode=form_post`: after the login form the broker's page posts code, state and iss to
  the receiver by itself, under the broker's Content-Security-Policy (its one script is allowed by
  a nonce; with the script blocked the browser would stop on the broker's page). The code is
  exchanged, and it never stood in a URL the receiver saw.
- `response_mode=fragment` (signed in already, SSO): the code is in the fragment, not the query.
- An error in `form_post` mode (an unsupported prompt) is posted too, with state and iss.

Usage: response_mode_test.py --bin PATH_TO_IDCONNECT
"""
import argparse
import http.server
import json
import shutil
import tempfile
import threading
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from account_support import APP_SECRET, CHALLENGE, VERIFIER, Client, add_redirect_uri, basic, free_port, serve
from browser_support import check, chromium, sign_in

browser_support.test_name = "Response-mode browser test"

SHOW_URL = """<!doctype html><html><head><meta charset="utf-8"><title>Receiver</title></head>
<body><pre id="url"></pre><script>
document.getElementById("url").textContent = JSON.stringify({query: location.search, fragment: location.hash});
</script></body></html>"""


class Receiver(http.server.BaseHTTPRequestHandler):
    """The client's callback: what it was sent, by which method."""
    seen = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("/favicon"):
            self.send_error(404)
            return
        Receiver.seen.append(("GET", self.path, None))
        self.answer(SHOW_URL)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        fields = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
        Receiver.seen.append(("POST", self.path, fields))
        self.answer("<!doctype html><html><body><pre id=\"posted\">" + json.dumps(fields).replace("<", "\\u003c")
                    + "</pre></body></html>")

    def answer(self, text):
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def authorize(base, callback, mode, state, **extra):
    parameters = {"client_id": "kid_demo", "redirect_uri": callback, "response_type": "code", "scope": "openid",
                  "state": state, "code_challenge": CHALLENGE, "code_challenge_method": "S256", "response_mode": mode}
    return f"{base}/oauth/auth?" + urllib.parse.urlencode(dict(parameters, **extra))


def exchange(base, callback, code):
    status, tokens, _ = Client(base).call("POST", "/oauth/token", headers=basic("kid_demo", APP_SECRET), form={
        "grant_type": "authorization_code", "code": code, "redirect_uri": callback, "code_verifier": VERIFIER})
    return status, tokens


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="idc-modes-")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    callback = f"http://127.0.0.1:{receiver.server_address[1]}/cb"
    process, base = serve(arguments.bin, work, mfa=None, adjust=lambda config: add_redirect_uri(config, callback))
    driver = None
    try:
        driver = chromium()
        wait = WebDriverWait(driver, 20)

        driver.get(authorize(base, callback, "form_post", "fp-state"))
        sign_in(driver, wait)
        wait.until(lambda d: d.current_url == callback and d.find_elements(By.ID, "posted"))
        posted = json.loads(driver.find_element(By.ID, "posted").text)
        check(set(posted) == {"state", "iss", "code"} and posted["state"] == "fp-state" and posted["iss"] == base,
              f"form_post posted {posted}")
        check(all(method == "POST" and path == "/cb" for method, path, _ in Receiver.seen),
              f"the receiver saw the code other than in a POST body: {Receiver.seen}")
        status, tokens = exchange(base, callback, posted["code"])
        check(status == 200 and "id_token" in tokens, f"the posted code did not exchange: {status} {tokens}")

        driver.get(authorize(base, callback, "fragment", "fr-state"))
        wait.until(lambda d: d.current_url.startswith(callback) and d.find_elements(By.ID, "url"))
        shown = json.loads(driver.find_element(By.ID, "url").text)
        fragment = dict(urllib.parse.parse_qsl(shown["fragment"].lstrip("#")))
        check(shown["query"] == "" and fragment.get("state") == "fr-state" and fragment.get("iss") == base and fragment.get("code"),
              f"fragment mode: {shown}")
        check(Receiver.seen[-1][:2] == ("GET", "/cb"), f"the fragment reached the receiver: {Receiver.seen[-1]}")
        status, _ = exchange(base, callback, fragment["code"])
        check(status == 200, f"the fragment's code did not exchange: {status}")

        driver.get(authorize(base, callback, "form_post", "err-state", prompt="bogus"))
        wait.until(lambda d: d.current_url == callback and d.find_elements(By.ID, "posted"))
        posted = json.loads(driver.find_element(By.ID, "posted").text)
        check(posted.get("error") == "invalid_request" and posted.get("state") == "err-state" and posted.get("iss") == base,
              f"form_post error: {posted}")
        print(f"Response-mode browser test: OK (form_post posted and exchanged under the CSP, fragment kept from the server, "
              f"an error posted; receiver {callback})")
    finally:
        if driver:
            driver.quit()
        process.terminate()
        process.wait(timeout=20)
        receiver.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
