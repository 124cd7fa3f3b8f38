#!/usr/bin/env python3
"""Consent and permission requests (docs/consent.md) end to end over HTTP: real broker processes,
a browser played by `requests` (cookies, forms), a back end's notification endpoint served here, and
the signed status notification verified by joserfc against the broker's published keys.

    scripts/consent-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database and every step alternates between
them; without it, one instance on SQLite.

Checks:
- alice signs in at one instance and allows the app on the consent screen at the other, email
  ticked and profile not: the tokens carry "openid email offline_access";
- "Remove access" on the account page (the other instance) ends the app's refresh token and access
  token at the first one, and the next authorization asks again;
- `idconnect consents list` shows a new consent, `idconnect consents revoke` takes it back (no
  broker involved) and the screen comes back;
- a back end's permission request: bob following alice's link is refused on an error page and the
  request stays pending; alice allows it (at the other instance); the back end reads `granted` by
  its reference and receives a status token signed by the broker (joserfc); a second request
  denied reads `denied`; another client reads neither (404).
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import fail, feature_instances, free_port, write_static_config  # noqa: E402

APP, SECRET, REDIRECT = "kid_consent", "consent-app-secret-123", "https://expenses.example.com/cb"
OTHER, OTHER_SECRET = "kid_other", "other-app-secret-1234"
CLIENT = f"{APP}.expenses"


def write_config(binary, work):
    def document(password_hash):
        users = [{"username": name, "passwordHash": password_hash, "email": f"{name}@example.org"} for name in ("alice", "bob")]
        provider = {"type": "static", "options": {"users": users}, "allowedAttributes": ["id", "email"]}
        consent = {"mode": "remembered", "scopes": {"email": "Read your work email address"}}
        service = {"id": "expenses", "name": "Expense Reports", "redirectUri": [REDIRECT], "provider": provider, "consent": consent}
        return {"environments": [
            {"appKey": APP, "appSecret": SECRET, "name": "Expense Reports", "authServices": [service]},
            {"appKey": OTHER, "appSecret": OTHER_SECRET, "authServices": [dict(service, consent=None)]},
        ]}
    return write_static_config(binary, work, "consent", document)


def at(port, url):
    """`url` (an absolute URL of the issuer) at the instance on `port`."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(netloc=f"127.0.0.1:{port}"))


def form_of(page):
    action = re.search(r'<form method="post" action="([^"]+)"', page)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    if not action or not token:
        fail(f"no form on the page: {page[:300]}")
    return html.unescape(action.group(1)), html.unescape(token.group(1))


class Browser:
    """One browser: a cookie jar (cookies are per host, so both instances on 127.0.0.1 share them)."""

    def __init__(self):
        self.session = requests.Session()

    def get(self, url):
        return self.session.get(url, allow_redirects=False, timeout=15)

    def post(self, url, form):
        return self.session.post(url, data=form, allow_redirects=False, timeout=15)

    def sign_in(self, port, url, user):
        """Follows an authorization URL at `port` to the login form and signs in; the next Location."""
        page = self.get(at(port, url))
        if page.status_code != 200:
            fail(f"authorization at {port}: {page.status_code} {page.text[:200]}")
        action, token = form_of(page.text)
        answer = self.post(at(port, action), {"csrf_token": token, "username": user, "password": "pw"})
        if answer.status_code not in (302, 303):
            fail(f"sign-in of {user}: {answer.status_code} {answer.text[:200]}")
        return answer.headers["Location"]

    def decide(self, port, consent_url, decision, granted=()):
        page = self.get(at(port, consent_url))
        if page.status_code != 200 or "consent-form" not in page.text:
            fail(f"the consent screen at {port}: {page.status_code} {page.text[:300]}")
        action, token = form_of(page.text)
        form = {"csrf_token": token, "decision": decision} | {f"grant_{scope}": "1" for scope in granted}
        answer = self.post(at(port, action), form)
        if answer.status_code != 302:
            fail(f"{decision} at {port}: {answer.status_code} {answer.text[:300]}")
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["Location"]).query))


def authorization(issuer, scope, state, prompt=None):
    query = {"client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": "code", "scope": scope, "state": state,
             "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}
    if prompt:
        query["prompt"] = prompt
    return f"{issuer}/oauth/auth?" + urllib.parse.urlencode(query)


VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"


def exchange(port, code, verifier=VERIFIER):
    answer = requests.post(f"http://127.0.0.1:{port}/oauth/token", auth=(CLIENT, SECRET), timeout=10, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier})
    if answer.status_code != 200:
        fail(f"code exchange at {port}: {answer.status_code} {answer.text[:300]}")
    return answer.json()


def notification_receiver():
    """Serves POST /hook; returns (URL, list of the status tokens received)."""
    received = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            received.append(urllib.parse.parse_qs(body).get("status_token", [""])[0])
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/hook", received


def cli(binary, config, storage, *arguments):
    run = subprocess.run([binary, "consents", *arguments, "--auth-service", "expenses", "--user", "alice", "--config", config,
                          "--storage", storage], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        fail(f"consents {arguments[0]}: {run.stderr[-300:]}")
    return run.stdout


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-consent-")
    config = write_config(binary, work)
    issuer, instances, shared = feature_instances(binary, config, work, "consent")
    try:
        for instance in instances:
            instance.start()
        pa, pb = instances[0].port, instances[-1].port
        storage = instances[0].storage

        # Allow with profile unticked, across the instances.
        alice = Browser()
        consent_url = alice.sign_in(pa, authorization(issuer, "openid profile email offline_access", "s1"), "alice")
        if "/oauth/consent/" not in consent_url:
            fail(f"no consent screen after the sign-in: {consent_url}")
        answer = alice.decide(pb, consent_url, "allow", granted=("email", "offline_access"))
        tokens = exchange(pa, answer["code"])
        if tokens.get("scope") != "openid email offline_access" or not tokens.get("refresh_token"):
            fail(f"the tokens after a partial Allow: {tokens.get('scope')}")
        print("  alice allowed the app at one instance after signing in at the other: tokens for openid email offline_access")

        # Remove access on the account page of the other instance.
        page = alice.get(f"http://127.0.0.1:{pb}/account?client_id={CLIENT}")
        if page.status_code != 200 or f'data-client="{CLIENT}"' not in page.text:
            fail(f"the account page does not list the app alice allowed: {page.status_code}")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
        removed = alice.post(f"http://127.0.0.1:{pb}/account/consents/remove?client_id={CLIENT}",
                             {"csrf_token": html.unescape(token), "client": CLIENT})
        if removed.status_code != 200 or "Removed the access of Expense Reports" not in removed.text:
            fail(f"Remove access: {removed.status_code} {removed.text[:300]}")
        time.sleep(0.6)   # a broker keeps what it read about a token for at most 0.5 s
        refreshed = requests.post(f"http://127.0.0.1:{pa}/oauth/token", auth=(CLIENT, SECRET), timeout=10,
                                  data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        validated = requests.get(f"http://127.0.0.1:{pa}/oauth/validate", timeout=10,
                                 headers={"Authorization": f"Bearer {tokens['access_token']}"})
        if refreshed.status_code != 400 or validated.status_code != 401:
            fail(f"after Remove access: refresh {refreshed.status_code}, validate {validated.status_code}")
        again = alice.get(at(pa, authorization(issuer, "openid email", "s2")))
        if "/oauth/consent/" not in again.headers.get("Location", ""):
            fail(f"the app did not ask again after Remove access: {again.status_code} {again.headers.get('Location')}")
        print("  Remove access at one instance: the refresh token (400) and access token (401) died at the other; the screen came back")

        # The command line.
        answer = alice.decide(pa, again.headers["Location"], "allow", granted=("email",))
        listed = cli(binary, config, storage, "list", "--json")
        if json.loads(listed.splitlines()[0]).get("client") != CLIENT:
            fail(f"consents list: {listed}")
        if "Took back 1 consent" not in cli(binary, config, storage, "revoke"):
            fail("consents revoke did not take the consent back")
        if "/oauth/consent/" not in alice.get(at(pb, authorization(issuer, "openid email", "s3"))).headers.get("Location", ""):
            fail("the app did not ask again after consents revoke")
        print("  idconnect consents list showed the consent, consents revoke took it back, the screen came back")

        # A back end's permission request.
        hook, received = notification_receiver()
        backend = (CLIENT, SECRET)
        created = requests.post(f"http://127.0.0.1:{pa}/oauth/permissions", auth=backend, timeout=10, data={
            "username": "alice", "scope": "openid email", "redirect_uri": REDIRECT, "external_reference": "report-7",
            "notification_uri": hook}).json()
        if created.get("status") != "pending" or not created.get("authorization_url") or not created.get("code_verifier"):
            fail(f"permission request: {created}")
        bob = Browser()
        bob_consent = bob.sign_in(pb, created["authorization_url"], "bob")
        refused = bob.get(at(pa, bob_consent))
        if refused.status_code != 400 or "another account" not in refused.text:
            fail(f"bob on alice's permission: {refused.status_code} {refused.text[:200]}")
        status = requests.get(f"http://127.0.0.1:{pb}/oauth/permissions/{created['id']}", auth=backend, timeout=10).json()
        if status.get("status") != "pending":
            fail(f"after bob: {status}")
        fresh = Browser()
        alice_consent = fresh.sign_in(pb, created["authorization_url"], "alice")
        answer = fresh.decide(pa, alice_consent, "allow", granted=("email",))
        if answer.get("state") != created["state"]:
            fail(f"the permission's answer: {answer}")
        exchange(pb, answer["code"], verifier=created["code_verifier"])
        read = requests.get(f"http://127.0.0.1:{pb}/oauth/permissions", params={"external_reference": "report-7"}, auth=backend,
                            timeout=10).json()
        if read.get("status") != "granted" or read.get("scope") != "openid email":
            fail(f"the permission read by its reference: {read}")
        for _ in range(50):
            if received:
                break
            time.sleep(0.1)
        keys = KeySet.import_key_set(requests.get(f"{issuer}/.well-known/jwks.json", timeout=10).json())
        claims = jwt.decode(received[0], keys).claims if received else {}
        if claims.get("status") != "granted" or claims.get("permission_id") != created["id"] or claims.get("aud") != CLIENT:
            fail(f"the status notification: {claims}")
        second = requests.post(f"http://127.0.0.1:{pb}/oauth/permissions", auth=backend, timeout=10, data={
            "username": "alice", "scope": "openid", "redirect_uri": REDIRECT, "external_reference": "report-8"}).json()
        denier = Browser()
        denied = denier.decide(pb, denier.sign_in(pa, second["authorization_url"], "alice"), "deny")
        if denied.get("error") != "access_denied":
            fail(f"deny: {denied}")
        if requests.get(f"http://127.0.0.1:{pa}/oauth/permissions/{second['id']}", auth=backend, timeout=10).json().get("status") != "denied":
            fail("the denied permission does not read denied")
        stranger = requests.get(f"http://127.0.0.1:{pa}/oauth/permissions/{created['id']}", auth=(OTHER, OTHER_SECRET), timeout=10)
        if stranger.status_code != 404:
            fail(f"another client read the permission: {stranger.status_code}")
        print("  permission requests: bob refused, alice allowed (granted, notified with a token joserfc verified), a second denied;"
              " another client got 404" + (" (two instances on PostgreSQL)" if shared else " (SQLite)"))
    finally:
        for instance in instances:
            instance.stop()
    print("consent-check: OK")


if __name__ == "__main__":
    main()
