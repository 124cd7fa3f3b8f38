#!/usr/bin/env python3
"""DPoP (RFC 9449, docs/dpop.md) end to end with proofs made by a JOSE library nobody here wrote:
joserfc (the JOSE library under authlib) generates the keys, computes their RFC 7638 thumbprints
and signs every proof; requests sends them.

    scripts/dpop-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database, as behind a load balancer, and
requests alternate between them: a proof used at A is a replay at B, a nonce from A works at B.
Without it, one instance on SQLite serves everything.

Checks: discovery's dpop_signing_alg_values_supported; a public client's authorization with
dpop_jkt, the code redeemed with a proof (token_type DPoP, cnf.jkt = joserfc's thumbprint) and
refused without one; userinfo and validate with a fresh proof; refused with the RFC's errors and a
`WWW-Authenticate: DPoP` challenge: a replayed proof (other instance), wrong htu, wrong htm, a
stale iat, another key, a missing ath, the token sent as Bearer; the refresh token only with the
key (also at /v3/oauth/token, signed for that URL); introspection's cnf and a back end's validate
with Basic credentials (cnf, no proof); an auth service with `dpop: {required, nonce}`: no proof, then
use_dpop_nonce with a DPoP-Nonce, then tokens with the nonce (from the other instance).
"""
import base64
import hashlib
import json
import os
import secrets
import sys
import tempfile
import time
import urllib.parse

import requests
from joserfc import jws
from joserfc.jwk import ECKey, RSAKey

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import fail, feature_instances, write_static_config  # noqa: E402

APP, SECRET, REDIRECT = "kid_dpop", "dpop-app-secret-123", "https://app.example.com/cb"
VERIFIER = secrets.token_urlsafe(48)
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


def write_config(binary, work):
    def document(password_hash):
        provider = {"type": "static", "options": {"users": [{"username": "alice", "passwordHash": password_hash}]}}
        return {"environments": [{
            "appKey": APP, "appSecret": SECRET, "defaultAuthService": "app",
            "authServices": [
                {"id": "app", "redirectUri": [REDIRECT], "provider": provider},
                {"id": "strict", "redirectUri": [REDIRECT], "dpop": {"required": True, "nonce": True}, "provider": provider},
            ],
        }]}

    return write_static_config(binary, work, "dpop", document)


class Client:
    """A DPoP client: one key (joserfc), proofs for each request."""

    def __init__(self, issuer, key=None):
        self.issuer = issuer
        self.key = key or ECKey.generate_key("P-256")

    def proof(self, method, url, access_token=None, nonce=None, iat=None, alg="ES256"):
        claims = {"jti": secrets.token_urlsafe(16), "htm": method, "htu": url, "iat": int(iat or time.time())}
        if access_token:
            claims["ath"] = base64.urlsafe_b64encode(hashlib.sha256(access_token.encode()).digest()).rstrip(b"=").decode()
        if nonce:
            claims["nonce"] = nonce
        header = {"typ": "dpop+jwt", "alg": alg, "jwk": self.key.as_dict(private=False)}
        return jws.serialize_compact(header, json.dumps(claims), self.key, algorithms=[alg])


def at(port, issuer, path):
    """The instance at `port` serving `issuer`'s `path` (what a load balancer would pick)."""
    return f"http://127.0.0.1:{port}{path}", f"{issuer}{path}"


def sign_in(port, extra):
    """The automated grant of the public client on `port`: the authorization code."""
    base = f"http://127.0.0.1:{port}"
    form = {"client_id": APP, "redirect_uri": REDIRECT, "response_type": "code", "code_challenge": CHALLENGE,
            "code_challenge_method": "S256", "scope": "openid"} | extra
    answer = requests.post(f"{base}/oauth/auth", data=form, timeout=10)
    if answer.status_code != 200:
        fail(f"/oauth/auth {answer.status_code}: {answer.text[:200]}")
    temp = urllib.parse.urlsplit(answer.json()["temp_login_uri"])
    answer = requests.post(f"{base}{temp.path}", data=form | {"username": "alice", "password": "pw"}, allow_redirects=False,
                           timeout=10)
    location = answer.headers.get("Location", "")
    if answer.status_code not in (302, 303) or "code=" not in location:
        fail(f"sign-in {answer.status_code}: {answer.text[:200]} {location}")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]


def expect_refusal(answer, status, error, what, challenge=False):
    body = answer.json() if answer.headers.get("Content-Type", "").startswith("application/json") else {}
    if answer.status_code != status or body.get("error") != error:
        fail(f"{what}: expected {status} {error}, got {answer.status_code} {answer.text[:200]}")
    if challenge and not answer.headers.get("WWW-Authenticate", "").startswith(f'DPoP error="{error}"'):
        fail(f"{what}: no DPoP challenge: {answer.headers.get('WWW-Authenticate')}")


def token_request(port, issuer, client, form, proof=True, nonce=None, auth=None):
    local, public = at(port, issuer, "/oauth/token")
    headers = {"DPoP": client.proof("POST", public, nonce=nonce)} if proof else {}
    return requests.post(local, data=form, headers=headers, auth=auth, timeout=10)


def resource(port, issuer, client, path, token, method="GET", **proof_options):
    local, public = at(port, issuer, path)
    proof = client.proof(proof_options.pop("htm", method), proof_options.pop("htu", public),
                         access_token=proof_options.pop("ath", token), **proof_options)
    headers = {"Authorization": f"DPoP {token}", "DPoP": proof}
    return requests.request(method, local, headers=headers, timeout=10), headers


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-dpop-")
    config = write_config(binary, work)
    issuer, instances, shared = feature_instances(binary, config, work, "dpop")
    try:
        for instance in instances:
            instance.start()
        pa, pb = instances[0].port, instances[-1].port
        discovery = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
        if "ES256" not in discovery.get("dpop_signing_alg_values_supported", []):
            fail(f"discovery: {discovery.get('dpop_signing_alg_values_supported')}")

        client = Client(issuer)
        code = sign_in(pa, {"dpop_jkt": client.key.thumbprint()})
        exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": APP,
                    "code_verifier": VERIFIER}
        expect_refusal(token_request(pa, issuer, client, exchange, proof=False), 400, "invalid_dpop_proof",
                       "a code bound by dpop_jkt without a proof")
        code = sign_in(pa, {"dpop_jkt": client.key.thumbprint()})
        tokens = token_request(pa, issuer, client, exchange | {"code": code})
        if tokens.status_code != 200 or tokens.json().get("token_type") != "DPoP":
            fail(f"code exchange with a proof: {tokens.status_code} {tokens.text[:300]}")
        tokens = tokens.json()
        payload = json.loads(base64.urlsafe_b64decode(tokens["access_token"].split(".")[1] + "=="))
        if payload.get("cnf", {}).get("jkt") != client.key.thumbprint():
            fail(f"cnf.jkt {payload.get('cnf')} is not joserfc's thumbprint {client.key.thumbprint()}")
        print(f"  code bound by dpop_jkt, redeemed with a joserfc proof: token_type DPoP, cnf.jkt = {client.key.thumbprint()[:12]}…")

        access = tokens["access_token"]
        answer, used = resource(pb, issuer, client, "/oauth/userinfo", access)
        if answer.status_code != 200 or answer.json().get("sub") is None:
            fail(f"userinfo with a proof: {answer.status_code} {answer.text[:200]}")
        replay = requests.get(at(pa, issuer, "/oauth/userinfo")[0], headers=used, timeout=10)
        expect_refusal(replay, 401, "invalid_dpop_proof", "the same proof again (other instance)", challenge=True)
        answer, _ = resource(pa, issuer, client, "/oauth/validate", access)
        if answer.status_code != 200:
            fail(f"validate with a proof: {answer.status_code} {answer.text[:200]}")
        wrong = {
            "a proof for another URL": {"htu": f"{issuer}/oauth/validate"},
            "a proof for POST": {"htm": "POST"},
            "a proof ten minutes old": {"iat": time.time() - 600},
            "a proof without ath": {"ath": None},
        }
        for what, options in wrong.items():
            expect_refusal(resource(pb, issuer, client, "/oauth/userinfo", access, **options)[0], 401, "invalid_dpop_proof", what,
                           challenge=True)
        thief = Client(issuer)
        expect_refusal(resource(pb, issuer, thief, "/oauth/userinfo", access)[0], 401, "invalid_dpop_proof",
                       "a proof of another key", challenge=True)
        rsa_thief = Client(issuer, RSAKey.generate_key(2048))
        expect_refusal(resource(pb, issuer, rsa_thief, "/oauth/userinfo", access, alg="PS256")[0], 401, "invalid_dpop_proof",
                       "a PS256 proof of another key", challenge=True)
        bearer = requests.get(at(pb, issuer, "/oauth/userinfo")[0], headers={"Authorization": f"Bearer {access}"}, timeout=10)
        expect_refusal(bearer, 401, "invalid_token", "the DPoP token as Bearer", challenge=True)
        print("  userinfo/validate with fresh proofs; replay (other instance), htu, htm, stale iat, no ath, other keys, Bearer: refused")

        refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": APP}
        expect_refusal(token_request(pb, issuer, client, refresh, proof=False), 400, "invalid_dpop_proof", "refresh without a proof")
        expect_refusal(token_request(pb, issuer, thief, refresh), 400, "invalid_dpop_proof", "refresh with another key")
        rotated = token_request(pb, issuer, client, refresh)
        if rotated.status_code != 200 or rotated.json().get("token_type") != "DPoP":
            fail(f"refresh with the key: {rotated.status_code} {rotated.text[:200]}")
        introspection = requests.post(at(pa, issuer, "/oauth/introspect")[0], data={"token": rotated.json()["access_token"]},
                                      auth=(APP, SECRET), timeout=10).json()
        if introspection.get("token_type") != "DPoP" or introspection.get("cnf", {}).get("jkt") != client.key.thumbprint():
            fail(f"introspection: {introspection}")
        backend = requests.get(at(pb, issuer, "/oauth/validate")[0], params={"access_token": rotated.json()["access_token"]},
                               auth=(APP, SECRET), timeout=10)
        if backend.status_code != 200 or backend.json().get("cnf", {}).get("jkt") != client.key.thumbprint():
            fail(f"validate by the back end (Basic, access_token=): {backend.status_code} {backend.text[:200]}")
        versioned = requests.post(at(pa, issuer, "/v3/oauth/token")[0], data=refresh | {"refresh_token": rotated.json()["refresh_token"]},
                                  headers={"DPoP": client.proof("POST", f"{issuer}/v3/oauth/token")}, timeout=10)
        if versioned.status_code != 200 or versioned.json().get("token_type") != "DPoP":
            fail(f"refresh at /v3/oauth/token with a proof for that URL: {versioned.status_code} {versioned.text[:200]}")
        print("  refresh only with the key (no proof, other key refused; /v3 path signed as sent); introspection and the back "
              "end's validate (Basic): cnf.jkt")

        password = {"grant_type": "password", "client_id": f"{APP}.strict", "username": "alice", "password": "pw",
                    "scope": "openid"}
        auth = (APP, SECRET)
        expect_refusal(token_request(pa, issuer, client, password, proof=False, auth=auth), 400, "invalid_dpop_proof",
                       "dpop.required without a proof")
        asked = token_request(pa, issuer, client, password, auth=auth)
        expect_refusal(asked, 400, "use_dpop_nonce", "dpop.nonce without a nonce")
        nonce = asked.headers.get("DPoP-Nonce")
        if not nonce:
            fail("use_dpop_nonce without a DPoP-Nonce header")
        strict = token_request(pb, issuer, client, password, nonce=nonce, auth=auth)
        if strict.status_code != 200 or strict.json().get("token_type") != "DPoP" or not strict.headers.get("DPoP-Nonce"):
            fail(f"with the nonce (other instance): {strict.status_code} {strict.headers.get('DPoP-Nonce')} {strict.text[:200]}")
        asked = resource(pa, issuer, client, "/oauth/userinfo", strict.json()["access_token"])[0]
        expect_refusal(asked, 401, "use_dpop_nonce", "a resource request without the nonce", challenge=True)
        answer = resource(pa, issuer, client, "/oauth/userinfo", strict.json()["access_token"], nonce=asked.headers["DPoP-Nonce"])[0]
        if answer.status_code != 200:
            fail(f"userinfo with the nonce: {answer.status_code} {answer.text[:200]}")
        print(f"  dpop.required + nonce: no proof refused, use_dpop_nonce with DPoP-Nonce, tokens with the nonce "
              f"({'from A at B' if shared else 'one instance'})")
        print("dpop: OK")
    finally:
        for instance in instances:
            instance.stop()


if __name__ == "__main__":
    main()
