#!/usr/bin/env python3
"""OpenID Connect back-channel logout from the provider (docs/connectors/oauth2-oidc.md,
"Back-channel logout from the provider") end to end against a provider that sends it: Glewlwyd 2.7
(Debian's C OAuth2/OIDC server, started by scripts/bench/glewlwyd-start.sh on loopback), whose
client for the broker has the broker's back-channel logout URI.

    scripts/backchannel-logout-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

Two people sign in to an app through the broker's `openid-connect` auth service, each in their own
browser (code flow at Glewlwyd, scripted with its login and consent API). The first ends their
session at Glewlwyd (`DELETE /api/oidc/session/{sid}`, what its logout page does); Glewlwyd POSTs
a signed logout token to the broker, which ends that sign-in at once: the app's access token no
longer validates and its refresh token is refused, while the second person's sign-in goes on.
"""
import base64
import os
import sys
import tempfile
import time
import urllib.parse

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "bench"))
import glewlwyd_peer  # noqa: E402
from multi_instance_support import Instance, fail, free_port, write_static_config  # noqa: E402

APP, SECRET = "kid_bcl", "backchannel-logout-check-secret"
CLIENT_ID, CLIENT_SECRET = "broker-oidc", "broker-oidc-secret-for-the-check"
REDIRECT = "http://localhost:3000/callback"
SID_COOKIE = "GLEWLWYD_OIDC_SID"


def configure_glewlwyd(port, broker):
    """Session management and back-channel logout on in the OIDC plugin; the broker's client, with
    its callback and its back-channel logout URI."""
    call = glewlwyd_peer.admin_api(port, fail)
    glewlwyd_peer.update_plugin(call, {"session-management-allowed": True, "session-cookie-name": SID_COOKIE,
                                       "session-cookie-expiration": 3600, "back-channel-logout-allowed": True,
                                       "pkce-allowed": True})  # the broker always sends S256 PKCE
    call("POST", "/api/client/", {
        "client_id": CLIENT_ID, "name": "Identity Connect", "enabled": True, "confidential": True,
        "client_secret": CLIENT_SECRET, "scope": ["openid", glewlwyd_peer.SCOPE],
        "redirect_uri": [f"{broker}/oauth/callback"], "authorization_type": ["code", "refresh_token"],
        "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
        "backchannel_logout_uri": f"{broker}/oauth/backchannel-logout/{APP}.glew",
        "backchannel_logout_session_required": "1"})


def write_config(binary, work, issuer):
    def document(password_hash):
        return {"environments": [{"appKey": APP, "appSecret": SECRET, "authServices": [{
            "id": "glew", "name": "Glewlwyd", "redirectUri": [REDIRECT], "refresh": True, "provider": {
                "type": "openid-connect",
                "options": {"issuerId": issuer, "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
                            "scope": f"openid {glewlwyd_peer.SCOPE}"}}}]}]}
    return write_static_config(binary, work, "backchannel-logout", document)


def basic():
    return {"Authorization": "Basic " + base64.b64encode(f"{APP}.glew:{SECRET}".encode()).decode()}


def sign_in(broker, glewlwyd, username):
    """One person's browser: the broker sends it to Glewlwyd, which knows them after its login API
    and their consent, and sends it back with a code. Returns (browser, tokens)."""
    browser = requests.Session()
    start = browser.get(f"{broker}/oauth/auth", params={"client_id": f"{APP}.glew", "redirect_uri": REDIRECT,
                                                        "response_type": "code", "state": "s1", "scope": "openid"},
                        allow_redirects=False, timeout=30)
    if start.status_code != 302 or not start.headers["Location"].startswith(glewlwyd):
        fail(f"the broker did not send the browser to Glewlwyd: {start.status_code} {start.headers.get('Location')}")
    login = browser.post(f"{glewlwyd}/api/auth/", json={"username": username, "password": glewlwyd_peer.PASSWORD}, timeout=30)
    if login.status_code != 200:
        fail(f"Glewlwyd login of {username}: {login.status_code} {login.text[:200]}")
    consent = browser.put(f"{glewlwyd}/api/auth/grant/{CLIENT_ID}", json={"scope": f"openid {glewlwyd_peer.SCOPE}"}, timeout=30)
    if consent.status_code != 200:
        fail(f"Glewlwyd consent of {username}: {consent.status_code} {consent.text[:200]}")
    # Glewlwyd's login page, once the person has signed in and consented, sends the browser back to
    # the authorization URL with `g_continue`; without it every request shows the login page.
    back = browser.get(start.headers["Location"] + "&g_continue", allow_redirects=False, timeout=30)
    location = back.headers.get("Location", "")
    if back.status_code != 302 or not location.startswith(f"{broker}/oauth/callback"):
        fail(f"Glewlwyd did not send {username} back to the broker: {back.status_code} {location[:300]}")
    landed = browser.get(location, allow_redirects=False, timeout=30)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(landed.headers.get("Location", "")).query).get("code")
    if landed.status_code not in (302, 303) or not code:
        fail(f"the broker's callback for {username}: {landed.status_code} {landed.headers.get('Location')} {landed.text[:300]}")
    tokens = requests.post(f"{broker}/oauth/token", data={"grant_type": "authorization_code", "code": code[0],
                                                          "redirect_uri": REDIRECT, "client_id": f"{APP}.glew"},
                           headers=basic(), timeout=30)
    if tokens.status_code != 200:
        fail(f"code exchange for {username}: {tokens.status_code} {tokens.text[:300]}")
    return browser, tokens.json()


def validates(broker, tokens):
    answer = requests.get(f"{broker}/oauth/validate", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=30)
    return answer.status_code == 200


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-backchannel-logout-")
    glewlwyd_dir = os.path.join(work, "glewlwyd")
    os.environ.setdefault("GLEWLWYD_PBKDF2_ITERATIONS", "1000")  # its 64 users are made at start
    server = glewlwyd_peer.start(glewlwyd_dir)
    instance = None
    try:
        issuer, glewlwyd = server["ISSUER"], f"http://127.0.0.1:{server['PORT']}"
        port = free_port()
        broker = f"http://127.0.0.1:{port}"
        configure_glewlwyd(server["PORT"], broker)
        instance = Instance("backchannel-logout", binary, write_config(binary, work, issuer), f"sqlite:{work}/db.sqlite",
                            broker, work)
        instance.port = port
        instance.start()

        first_browser, first = sign_in(broker, glewlwyd, glewlwyd_peer.USERNAMES[0])
        _, second = sign_in(broker, glewlwyd, glewlwyd_peer.USERNAMES[1])
        if not (validates(broker, first) and validates(broker, second)):
            fail("a fresh sign-in does not validate")
        sid = first_browser.cookies.get(SID_COOKIE)
        if not sid:
            fail(f"Glewlwyd set no {SID_COOKIE} cookie")
        print(f"  {glewlwyd_peer.USERNAMES[0]} and {glewlwyd_peer.USERNAMES[1]} signed in through Glewlwyd (code flow, ID token with sid)")

        started = time.monotonic()
        ended = first_browser.delete(f"{glewlwyd}/api/oidc/session/{sid}", timeout=30)
        if ended.status_code != 200:
            fail(f"ending the session at Glewlwyd: {ended.status_code} {ended.text[:200]}")
        while validates(broker, first):
            if time.monotonic() - started > 15:
                fail("the broker still validates the token 15 s after the sign-out at Glewlwyd (no logout token arrived?)")
            time.sleep(0.1)
        elapsed = time.monotonic() - started
        refreshed = requests.post(f"{broker}/oauth/token", data={"grant_type": "refresh_token",
                                                                 "refresh_token": first["refresh_token"]},
                                  headers=basic(), timeout=30)
        if refreshed.status_code != 400 or refreshed.json().get("error") != "invalid_grant":
            fail(f"the signed-out user's refresh token: {refreshed.status_code} {refreshed.text[:200]}")
        if not validates(broker, second):
            fail("the other person's sign-in ended too")
        print(f"  signed out at Glewlwyd: its logout token ended the broker's sign-in {elapsed * 1000:.0f} ms later "
              "(validate 401, refresh invalid_grant); the other person's sign-in goes on")
        print("backchannel-logout-check: OK")
    finally:
        if instance is not None:
            instance.stop()
        glewlwyd_peer.stop(glewlwyd_dir)


if __name__ == "__main__":
    main()
