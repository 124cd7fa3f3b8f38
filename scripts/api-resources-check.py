#!/usr/bin/env python3
"""Drives the real `idconnect` with the APIs of docs/api-resources.md and the two example
resource servers (examples/python with PyJWT, examples/swift with jwt-kit), as an API owner
would meet them:

- a token for both APIs is accepted by both; a token for the other API only, a token with no API
  scope, one lacking the required scope (403) and an expired one are refused;
- authlib (a standard OAuth client) pushes its authorization request (RFC 9126), signs alice in
  through the login page and exchanges the code: the token works at the API it named.

Usage: api-resources-check.py IDCONNECT RESOURCE_SERVER_EXAMPLE  (run with .venv-peers' python)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDCONNECT, SWIFT_EXAMPLE = sys.argv[1], sys.argv[2]
API_A, API_B = "https://api-a.example.com", "https://api-b.example.com"
REDIRECT = "http://localhost:3000/callback"
APP, SECRET = "kid_api", "api-check-secret-0123"
PROCESSES = []


def fail(message):
    print(f"api-resources: FAIL: {message}", file=sys.stderr)
    for process in PROCESSES:
        process.terminate()
    sys.exit(1)


def config(directory, port):
    digest = subprocess.run([IDCONNECT, "hash-password"], input="password\n", capture_output=True, text=True, check=True)
    HASH = digest.stdout.strip().splitlines()[-1]
    service = lambda ident, ttl: {  # noqa: E731
        "id": ident, "name": ident, "redirectUri": [REDIRECT], "tokenTtl": ttl, "allowedScopes": ["api:a", "api:a:write", "api:b"],
        "provider": {"type": "static", "options": {"users": [{"username": "alice", "passwordHash": HASH}]}}}
    document = {
        "server": {"issuer": f"http://127.0.0.1:{port}"},
        "environments": [{
            "appKey": APP, "appSecret": SECRET, "defaultAuthService": "users",
            "authServices": [service("users", 600), service("short", 2)],
            "apiResources": [{"scope": "api:a", "audience": API_A}, {"scope": "api:a:write", "audience": API_A},
                             {"scope": "api:b", "audience": API_B}],
        }],
    }
    os.makedirs(os.path.join(directory, "config"), exist_ok=True)
    with open(os.path.join(directory, "config", "api.yaml"), "w") as handle:
        json.dump(document, handle)   # JSON is YAML
    return os.path.join(directory, "config")


def start(arguments, ready_url, log):
    process = subprocess.Popen(arguments, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    PROCESSES.append(process)
    for _ in range(300):
        try:
            requests.get(ready_url, timeout=1)
            return process
        except requests.RequestException:
            time.sleep(0.1)
    fail(f"{arguments[0]} did not start; see {log}")


def password_token(base, scope, client=APP):
    answer = requests.post(f"{base}/oauth/token", auth=(APP, SECRET), data={
        "grant_type": "password", "username": "alice", "password": "password", "scope": scope, "client_id": client})
    if answer.status_code != 200:
        fail(f"password grant ({scope}): {answer.status_code} {answer.text}")
    return answer.json()["access_token"]


def expect(api, token, status, what):
    answer = requests.get(f"{api}/hello", headers={"Authorization": f"Bearer {token}"} if token else {})
    if answer.status_code != status:
        fail(f"{what} at {api}: {answer.status_code} {answer.text} (expected {status})")


def pushed_sign_in(base, api):
    """authlib: PAR with client_secret_basic, the login page, the code exchange with PKCE."""
    verifier = generate_token(48)
    client = OAuth2Session(APP, SECRET, scope="openid api:a", redirect_uri=REDIRECT, code_challenge_method="S256")
    pushed = client.post(f"{base}/oauth/par", auth=client.client_auth("client_secret_basic"), data={
        "client_id": APP, "response_type": "code", "redirect_uri": REDIRECT, "scope": "openid api:a", "state": "par-state",
        "resource": API_A, "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256"},
        withhold_token=True)
    if pushed.status_code != 201:
        fail(f"PAR: {pushed.status_code} {pushed.text}")
    url, _ = client.create_authorization_url(f"{base}/oauth/auth", request_uri=pushed.json()["request_uri"])
    browser = requests.Session()
    page = browser.get(url)
    action = re.search(r'<form method="post" action="([^"]+)"', page.text)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    if not action or not csrf:
        fail(f"no login form for the pushed request: {page.status_code} {page.text[:200]}")
    signed = browser.post(action.group(1).replace("&amp;", "&"), data={"csrf_token": csrf.group(1), "username": "alice",
                                                                        "password": "password"}, allow_redirects=False)
    location = signed.headers.get("Location", "")
    if "code=" not in location or "state=par-state" not in location:
        fail(f"sign-in redirect: {signed.status_code} {location}")
    token = client.fetch_token(f"{base}/oauth/token", authorization_response=location, code_verifier=verifier,
                               state="par-state")
    expect(api, token["access_token"], 200, "authlib's token from the pushed request")


def main():
    work = tempfile.mkdtemp(prefix="idc-api-")
    port, python_port, swift_port = free_port(), free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    start([IDCONNECT, "serve", "--config", config(work, port), "--port", str(port), "--storage", f"sqlite:{work}/db.sqlite"],
          f"{base}/healthz", os.path.join(work, "broker.log"))
    common = ["--issuer", base, "--audience", API_A, "--scope", "api:a"]
    python_api = f"http://127.0.0.1:{python_port}"
    swift_api = f"http://127.0.0.1:{swift_port}"
    start([sys.executable, os.path.join(ROOT, "examples", "python", "resource_server.py"), *common, "--port", str(python_port)],
          f"{python_api}/hello", os.path.join(work, "python-api.log"))
    start([SWIFT_EXAMPLE, *common, "--port", str(swift_port)], f"{swift_api}/hello", os.path.join(work, "swift-api.log"))
    writer = [SWIFT_EXAMPLE, "--issuer", base, "--audience", API_A, "--scope", "api:a:write", "--port", str(free_port())]

    both = password_token(base, "openid api:a api:b")
    other = password_token(base, "api:b")
    none = password_token(base, "openid email")
    short = password_token(base, "api:a", client=f"{APP}.short")
    for api in (python_api, swift_api):
        expect(api, both, 200, "a token for both APIs")
        expect(api, other, 401, "a token for the other API")
        expect(api, none, 401, "a token for no API (aud = client_id)")
        expect(api, None, 401, "no token")
        expect(api, both[:-4] + "AAAA", 401, "a forged signature")
    writes = start(writer, f"http://127.0.0.1:{writer[-1]}/hello", os.path.join(work, "swift-writer.log"))
    expect(f"http://127.0.0.1:{writer[-1]}", both, 403, "a token without api:a:write")
    expect(f"http://127.0.0.1:{writer[-1]}", password_token(base, "api:a:write"), 200, "a token with api:a:write")
    writes.terminate()
    time.sleep(3.5)
    for api in (python_api, swift_api):
        expect(api, short, 401, "an expired token")
    pushed_sign_in(base, python_api)
    for process in PROCESSES:
        process.terminate()
    print("api-resources: OK (PyJWT and jwt-kit resource servers accept the right tokens and refuse other audience, "
          "missing scope, no API, forged and expired ones; authlib signs in through a pushed request)")


main()
