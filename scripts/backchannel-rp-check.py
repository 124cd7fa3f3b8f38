#!/usr/bin/env python3
"""Back-channel logout to relying parties (OpenID Connect Back-Channel Logout 1.0; docs/protocol.md,
"Back-channel logout to relying parties") end to end: real broker processes, a relying party's
back-channel endpoint served here, and the logout tokens verified by joserfc (a JOSE library nobody
here wrote) against the broker's published keys.

    scripts/backchannel-rp-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database and the sign-ins, logouts and
deliveries are spread over them; without it, one instance on SQLite.

Checks:
- discovery says backchannel_logout_supported and backchannel_logout_session_supported;
- `idconnect sessions revoke` (the command line, no broker involved) ends alice's sign-in: the relying
  party receives one logout token — typ logout+jwt, signed by a key of the broker's JWKS, iss, aud the
  client id, sub and sid as in the ID token, the logout event, iat/exp/jti, no nonce — within seconds;
- revoking the only refresh token of bob's sign-in (RFC 7009, on the other instance) ends it: told too;
- a relying party that answers 500 once is told again after the first retry delay (5 s), and the
  broker audits the failure (backchannel_logout.failed, attempt 1);
- a sign-in that did not end tells nobody, and each ended one is told exactly once.
"""
import base64
import json
import os
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
from multi_instance_support import code_flow_tokens, fail, feature_instances, free_port, write_static_config  # noqa: E402

APP, SECRET, REDIRECT = "kid_bcl", "bcl-app-secret-1234", "https://rp.example.com/cb"
EVENT = "http://schemas.openid.net/event/backchannel-logout"


class RelyingParty(BaseHTTPRequestHandler):
    """The relying parties' back-channel endpoints: /app takes every token, /flaky answers 500 to its first."""
    received = []          # (path, form, time)
    flaky_refusals = 1
    lock = threading.Lock()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        with RelyingParty.lock:
            refuse = self.path == "/flaky" and RelyingParty.flaky_refusals > 0
            if refuse:
                RelyingParty.flaky_refusals -= 1
            else:
                RelyingParty.received.append((self.path, form, time.time(), self.headers.get("Content-Type", "")))
        self.send_response(500 if refuse else 200)
        self.send_header("Content-Length", "0")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def log_message(self, *args):
        pass


def write_config(binary, work, rp_port):
    def document(password_hash):
        users = [{"username": name, "passwordHash": password_hash} for name in ("alice", "bob", "carol")]
        provider = {"type": "static", "options": {"users": users}}
        return {"environments": [{
            "appKey": APP, "appSecret": SECRET, "defaultAuthService": "app",
            "authServices": [
                {"id": "app", "redirectUri": [REDIRECT], "provider": provider,
                 "backchannelLogoutUri": f"http://127.0.0.1:{rp_port}/app"},
                {"id": "flaky", "redirectUri": [REDIRECT], "provider": provider,
                 "backchannelLogoutUri": f"http://127.0.0.1:{rp_port}/flaky"},
            ],
        }]}

    return write_static_config(binary, work, "bcl", document)


def tokens(port, client, user):
    return code_flow_tokens(port, client, SECRET, REDIRECT, user)

def claims_of(token):
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def wait_for(path, count, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        with RelyingParty.lock:
            found = [entry for entry in RelyingParty.received if entry[0] == path]
        if len(found) >= count:
            return found
        time.sleep(0.05)
    fail(f"{path}: {count} logout token(s) expected within {seconds} s, got {len(found)}")


def check_token(form, keys, issuer, audience, id_token, seen_jtis):
    token = form.get("logout_token", [""])[0]
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    if header.get("typ") != "logout+jwt":
        fail(f"logout token typ {header.get('typ')}")
    claims = jwt.decode(token, keys).claims          # joserfc verifies the signature with the broker's JWKS
    expected = claims_of(id_token)
    problems = []
    if claims.get("iss") != issuer:
        problems.append(f"iss {claims.get('iss')}")
    if claims.get("aud") != audience:
        problems.append(f"aud {claims.get('aud')}")
    if (claims.get("sub"), claims.get("sid")) != (expected["sub"], expected["sid"]):
        problems.append("sub/sid differ from the ID token's")
    if claims.get("events") != {EVENT: {}}:
        problems.append(f"events {claims.get('events')}")
    if "nonce" in claims:
        problems.append("a nonce")
    if not (claims.get("iat", 0) <= time.time() + 5 and claims.get("exp", 0) > time.time()):
        problems.append(f"iat/exp {claims.get('iat')}/{claims.get('exp')}")
    if not claims.get("jti") or claims["jti"] in seen_jtis:
        problems.append("jti missing or repeated")
    if problems:
        fail("logout token: " + "; ".join(problems))
    seen_jtis.add(claims["jti"])


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-bcl-")
    rp_port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", rp_port), RelyingParty)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config = write_config(binary, work, rp_port)
    issuer, instances, shared = feature_instances(binary, config, work, "bcl")
    try:
        for instance in instances:
            instance.start()
        pa, pb = instances[0].port, instances[-1].port
        discovery = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
        if not (discovery.get("backchannel_logout_supported") and discovery.get("backchannel_logout_session_supported")):
            fail("discovery does not say backchannel_logout_supported and backchannel_logout_session_supported")
        keys = KeySet.import_key_set(requests.get(f"{issuer}/.well-known/jwks.json", timeout=10).json())
        seen = set()

        alice = tokens(pa, APP, "alice")
        carol = tokens(pb, APP, "carol")
        started = time.time()
        revoke = subprocess.run([binary, "sessions", "revoke", "--user", "alice", "--config", config, "--storage", instances[0].storage],
                                capture_output=True, text=True, timeout=60)
        if revoke.returncode != 0:
            fail(f"idconnect sessions revoke: {revoke.stderr[-300:]}")
        path, form, arrived, content_type = wait_for("/app", 1, 15)[0]
        if not content_type.startswith("application/x-www-form-urlencoded"):
            fail(f"content type {content_type}")
        check_token(form, keys, issuer, APP, alice["id_token"], seen)
        print(f"  sessions revoke (command line) → logout token at the relying party {1000 * (arrived - started):.0f} ms later, "
              "verified by joserfc (typ, signature, iss, aud, sub, sid, events, no nonce)")

        bob = tokens(pb, APP, "bob")
        started = time.time()
        answer = requests.post(f"http://127.0.0.1:{pb}/oauth/revoke", auth=(APP, SECRET), timeout=10,
                               data={"token": bob["refresh_token"], "token_type_hint": "refresh_token"})
        if answer.status_code != 200:
            fail(f"revocation: {answer.status_code} {answer.text[:200]}")
        _, form, arrived, _ = wait_for("/app", 2, 15)[1]
        check_token(form, keys, issuer, APP, bob["id_token"], seen)
        print(f"  the sign-in's only refresh token revoked → told {1000 * (arrived - started):.0f} ms later")

        flaky_client = f"{APP}.flaky"
        dave = tokens(pa, flaky_client, "alice")
        started = time.time()
        subprocess.run([binary, "sessions", "revoke", "--user", "alice", "--auth-service", "flaky", "--config", config,
                        "--storage", instances[0].storage], capture_output=True, text=True, timeout=60, check=True)
        _, form, arrived, _ = wait_for("/flaky", 1, 25)[0]
        check_token(form, keys, issuer, flaky_client, dave["id_token"], seen)
        if arrived - started < 4.5:
            fail(f"the refused token was retried after {arrived - started:.1f} s, before the 5 s delay")
        logs = "".join(open(instance.log).read() for instance in instances)
        if "backchannel_logout.failed" not in logs or '"attempt":"1"' not in logs.replace(" ", "") and "attempt=1" not in logs:
            fail("the refused delivery was not audited (backchannel_logout.failed, attempt 1)")
        print(f"  a relying party that answered 500 got the token on the retry, {arrived - started:.1f} s after the logout; audited")

        time.sleep(2)
        with RelyingParty.lock:
            paths = [entry[0] for entry in RelyingParty.received]
        if paths.count("/app") != 2 or paths.count("/flaky") != 1:
            fail(f"deliveries {paths}: each ended sign-in is told once, carol's (still signed in) never")
        if requests.get(f"http://127.0.0.1:{pa}/oauth/validate", timeout=10,
                        headers={"Authorization": f"Bearer {carol['access_token']}"}).status_code != 200:
            fail("carol's sign-in did not survive")
        print(f"  {len(paths)} deliveries in all, each once; a sign-in that did not end told nobody"
              + (" (two instances on PostgreSQL)" if shared else " (SQLite)"))
    finally:
        for instance in instances:
            instance.stop()
        server.shutdown()
    print("backchannel-rp-check: OK")


if __name__ == "__main__":
    main()
