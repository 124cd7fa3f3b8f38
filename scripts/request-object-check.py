#!/usr/bin/env python3
"""Signed authorization requests (RFC 9101 JAR; docs/client-authentication.md, "Signed authorization
requests") end to end, with request objects signed by joserfc (a JOSE library nobody here wrote).

    scripts/request-object-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database: a request object pushed at A is
used at B. Without it, one instance on SQLite.

Checks, for a private_key_jwt environment with `requireSignedRequestObject: true`:
- a request object by value at /oauth/auth: the login page, alice signs in (the hosted form, as a
  browser posts it), the code comes back to the object's redirect_uri with the object's state, and
  the ID token carries the object's nonce; outer parameters other than client_id are ignored;
- the same through PAR: pushed with a client assertion at A, its request_uri used at B;
- refused: an unsigned request (invalid_request), `alg: none`, another key, another `aud`, an
  expired object, a `client_id` claim naming another client (invalid_request_object, error pages,
  nothing redirected), and at PAR a JSON 400 for a bad object.
"""
import base64
import hashlib
import json
import os
import re
import secrets
import sys
import tempfile
import time
import urllib.parse

import requests
from joserfc import jws
from joserfc.jwk import RSAKey

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import fail, feature_instances, write_static_config  # noqa: E402

CLIENT, REDIRECT = "kid_jar", "https://app.example.com/cb"
KEY = RSAKey.generate_key(2048, parameters={"kid": "jar-1"})
OTHER = RSAKey.generate_key(2048, parameters={"kid": "jar-1"})
VERIFIER = secrets.token_urlsafe(48)
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


def write_config(binary, work):
    def document(password_hash):
        return {"environments": [{
            "appKey": CLIENT, "requireSignedRequestObject": True,
            "clientAuth": {"method": "private_key_jwt", "jwks": json.dumps({"keys": [KEY.as_dict(private=False)]})},
            "authServices": [{"id": "app", "redirectUri": [REDIRECT], "provider": {"type": "static", "options": {
                "users": [{"username": "alice", "passwordHash": password_hash}]}}}],
        }]}

    return write_static_config(binary, work, "jar", document)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def request_object(issuer, key=KEY, alg="RS256", **changes):
    now = int(time.time())
    claims = {"iss": CLIENT, "aud": issuer, "client_id": CLIENT, "response_type": "code", "redirect_uri": REDIRECT,
              "scope": "openid", "state": "jar-state", "nonce": "jar-nonce", "code_challenge": CHALLENGE,
              "code_challenge_method": "S256", "iat": now, "nbf": now, "exp": now + 300, "jti": secrets.token_urlsafe(12)}
    claims.update(changes)
    if alg == "none":
        return f"{b64(json.dumps({'alg': 'none'}).encode())}.{b64(json.dumps(claims).encode())}."
    return jws.serialize_compact({"alg": alg, "kid": key.kid, "typ": "oauth-authz-req+jwt"}, json.dumps(claims), key,
                                 algorithms=[alg])


def assertion(issuer):
    now = int(time.time())
    claims = {"iss": CLIENT, "sub": CLIENT, "aud": issuer, "jti": secrets.token_urlsafe(16), "iat": now, "exp": now + 60}
    return jws.serialize_compact({"alg": "RS256", "kid": KEY.kid}, json.dumps(claims), KEY, algorithms=["RS256"])


def client_auth(issuer):
    return {"client_id": CLIENT, "client_assertion": assertion(issuer),
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}


def sign_in(port, query):
    """GET /oauth/auth with `query`, then the hosted login form posted as a browser does; the redirect."""
    session = requests.Session()
    page = session.get(f"http://127.0.0.1:{port}/oauth/auth", params=query, allow_redirects=False, timeout=10)
    action = re.search(r'<form method="post" action="([^"]+)"', page.text)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    if page.status_code != 200 or not action or not token:
        fail(f"no login page: {page.status_code} {page.text[:300]}")
    target = urllib.parse.urljoin(page.url, action.group(1).replace("&amp;", "&"))
    answer = session.post(target, data={"csrf_token": token.group(1), "username": "alice", "password": "pw"},
                          allow_redirects=False, timeout=10)
    return urllib.parse.urlsplit(answer.headers.get("Location", ""))


def redeem(port, issuer, location):
    query = urllib.parse.parse_qs(location.query)
    if f"{location.scheme}://{location.netloc}{location.path}" != REDIRECT or query.get("state") != ["jar-state"]:
        fail(f"the code went to {location.geturl()[:200]}")
    answer = requests.post(f"http://127.0.0.1:{port}/oauth/token", timeout=10, data={
        "grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": REDIRECT, "code_verifier": VERIFIER,
        **client_auth(issuer)})
    if answer.status_code != 200:
        fail(f"code exchange: {answer.status_code} {answer.text[:200]}")
    nonce = json.loads(base64.urlsafe_b64decode(answer.json()["id_token"].split(".")[1] + "=="))["nonce"]
    if nonce != "jar-nonce":
        fail(f"the ID token's nonce is {nonce}, not the request object's")


def expect_page(port, query, error, what):
    answer = requests.get(f"http://127.0.0.1:{port}/oauth/auth", params=query, allow_redirects=False, timeout=10)
    if answer.status_code < 400 or "Location" in answer.headers or error not in answer.text:
        fail(f"{what}: expected an error page with {error}, got {answer.status_code} {answer.headers.get('Location')}")
    print(f"  refused ({answer.status_code} {error}, no redirect): {what}")


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-jar-")
    config = write_config(binary, work)
    issuer, instances, shared = feature_instances(binary, config, work, "jar")
    try:
        for instance in instances:
            instance.start()
        pa, pb = instances[0].port, instances[-1].port

        location = sign_in(pa, {"client_id": CLIENT, "request": request_object(issuer),
                                "redirect_uri": "https://evil.example.com/cb", "state": "outer"})
        redeem(pa, issuer, location)
        print("  by value: signed in, the code at the object's redirect_uri with its state, its nonce in the ID token "
              "(outer redirect_uri and state ignored)")

        pushed = requests.post(f"http://127.0.0.1:{pa}/oauth/par", timeout=10,
                               data={"request": request_object(issuer), **client_auth(issuer)})
        if pushed.status_code != 201:
            fail(f"PAR: {pushed.status_code} {pushed.text[:200]}")
        redeem(pb, issuer, sign_in(pb, {"client_id": CLIENT, "request_uri": pushed.json()["request_uri"]}))
        print("  through PAR: pushed at one instance, used at the other" if shared else "  through PAR: pushed and used")

        plain = {"client_id": CLIENT, "response_type": "code", "redirect_uri": REDIRECT, "scope": "openid", "state": "s",
                 "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
        expect_page(pa, plain, "invalid_request", "an unsigned request (requireSignedRequestObject)")
        bad = {"alg none": request_object(issuer, alg="none"), "another key": request_object(issuer, key=OTHER),
               "another aud": request_object(issuer, aud="https://elsewhere.example.com"),
               "expired": request_object(issuer, exp=int(time.time()) - 120, iat=int(time.time()) - 600,
                                         nbf=int(time.time()) - 600),
               "client_id naming another client": request_object(issuer, client_id="kid_other")}
        for what, token in bad.items():
            expect_page(pb, {"client_id": CLIENT, "request": token}, "invalid_request_object", what)
        refused = requests.post(f"http://127.0.0.1:{pb}/oauth/par", timeout=10,
                                data={"request": request_object(issuer, key=OTHER), **client_auth(issuer)})
        if refused.status_code != 400 or refused.json().get("error") != "invalid_request_object":
            fail(f"PAR with a bad object: {refused.status_code} {refused.text[:200]}")
        print("  refused at PAR (400 invalid_request_object): an object signed by another key"
              + (" (two instances on PostgreSQL)" if shared else " (SQLite)"))
    finally:
        for instance in instances:
            instance.stop()
    print("request-object-check: OK")


if __name__ == "__main__":
    main()
