#!/usr/bin/env python3
"""Runs passkeys.js in headless Chromium against its virtual authenticator and saves
what the browser returned as Tests/WebAuthnTests/Fixtures/chromium.json for the Swift tests.

Optional: the committed chromium.json is what the tests read. To regenerate:
  apt-get install chromium chromium-driver
  .venv/bin/pip install selenium webauthn
  .venv/bin/python Tests/WebAuthnTests/Fixtures/chromium_fixtures.py

Options are built with the same JSON shape as PasskeyCreationOptions /
PasskeyRequestOptions. Chromium's authenticator picks the first algorithm offered
(ES256), so the RS256 run offers RS256 alone. Each response is also checked with
py_webauthn before it is saved.
"""
import base64
import functools
import http.server
import json
import os
import threading

import webauthn
from selenium import webdriver
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "Sources", "WebAuthn", "Resources", "passkeys.js")
PAGE = b"<!doctype html><title>passkeys</title><script src='/passkeys.js'></script><p>passkeys test page</p>"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body, kind = (open(SCRIPT, "rb").read(), "text/javascript") if self.path == "/passkeys.js" else (PAGE, "text/html")
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def call(driver, function, options):
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"{function}(arguments[0]).then(r => done({{ok: true, r}}), e => done({{ok: false, e: String(e)}}));",
        options)
    if not result["ok"]:
        raise RuntimeError(f"{function} failed in the browser: {result['e']}")
    return result["r"]


def run(driver, rp_id, origin, algorithms):
    registrations, assertions = [], []
    challenge = os.urandom(32)
    options = {
        "challenge": b64u(challenge), "rp": {"id": rp_id, "name": "Identity Connect"},
        "user": {"id": b64u(b"user-1234"), "name": "alice@example.com", "displayName": "Alice"},
        "pubKeyCredParams": [{"type": "public-key", "alg": a} for a in algorithms], "timeout": 60000,
        "attestation": "none", "excludeCredentials": [],
        "authenticatorSelection": {"residentKey": "preferred", "requireResidentKey": False, "userVerification": "preferred"},
    }
    response = call(driver, "registerPasskey", options)
    verified = webauthn.verify_registration_response(credential=response, expected_challenge=challenge,
                                                     expected_rp_id=rp_id, expected_origin=origin)
    name = f"chromium-{'es256' if algorithms[0] == -7 else 'rs256'}"
    registrations.append({"name": name + "-register", "challenge": b64u(challenge), "requireUserVerification": True,
                          "credential": response, "pyWebauthn": "accepted",
                          "publicKey": b64u(verified.credential_public_key), "signCount": verified.sign_count,
                          "fmt": verified.fmt})
    public_key, count = verified.credential_public_key, verified.sign_count
    for index, allow in enumerate([[{"type": "public-key", "id": response["id"]}], []]):
        challenge = os.urandom(32)
        request = {"challenge": b64u(challenge), "rpId": rp_id, "allowCredentials": allow,
                   "userVerification": "preferred", "timeout": 60000}
        answer = call(driver, "signInWithPasskey", request)
        result = webauthn.verify_authentication_response(
            credential=answer, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=origin,
            credential_public_key=public_key, credential_current_sign_count=count, require_user_verification=True)
        assertions.append({"name": f"{name}-sign-in-{index + 1}", "challenge": b64u(challenge),
                           "requireUserVerification": True,
                           "storedCredential": {"publicKey": b64u(public_key), "signCount": count},
                           "credential": answer, "pyWebauthn": "accepted", "signCount": result.new_sign_count})
        count = result.new_sign_count
    return registrations, assertions


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    origin, rp_id = f"http://localhost:{port}", "localhost"
    chrome = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        chrome.add_argument(flag)
    driver = webdriver.Chrome(options=chrome, service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"))
    try:
        driver.get(origin + "/")
        registrations, assertions = [], []
        for algorithms in ([-7, -257], [-257]):
            authenticator = VirtualAuthenticatorOptions(
                protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
                has_user_verification=True, is_user_consenting=True, is_user_verified=True)
            driver.add_virtual_authenticator(authenticator)
            more_registrations, more_assertions = run(driver, rp_id, origin, algorithms)
            registrations += more_registrations
            assertions += more_assertions
            driver.remove_virtual_authenticator()
        browser = driver.capabilities.get("browserVersion")
    finally:
        driver.quit()
        server.shutdown()
    with open(os.path.join(HERE, "chromium.json"), "w") as out:
        json.dump({"rpId": rp_id, "origin": origin, "browser": f"Chromium {browser}",
                   "registrations": registrations, "assertions": assertions}, out, indent=1)
        out.write("\n")
    for case in registrations + assertions:
        print("ok", case["name"], "py_webauthn accepted", "signCount", case["signCount"])


if __name__ == "__main__":
    main()
