#!/usr/bin/env python3
"""JWT client authentication (RFC 7523, docs/client-authentication.md) end to end with a client
library nobody here wrote: authlib's OAuth2Session with its PrivateKeyJWT and ClientSecretJWT
methods signs every assertion (joserfc makes the keys and the hand-made assertions).

    scripts/client-auth-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database, as behind a load balancer: an
assertion used at A is a replay at B. Without it, one instance on SQLite serves everything.

Checks: discovery names private_key_jwt, client_secret_jwt and their algorithms; authlib's
PrivateKeyJWT (RS256, keys published at a jwksUri served here) gets tokens with the password
grant, then introspects (other instance) and revokes with new assertions; an inline-jwks client
with ES256; authlib's ClientSecretJWT (HS256); refused with 401 invalid_client: the same
assertion twice (second time at the other instance), the secret of a client_secret_jwt client,
no credentials at all, an assertion signed by another key, one for another audience, alg none.
"""
import base64
import json
import os
import secrets
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import ClientSecretJWT, PrivateKeyJWT
from joserfc import jws
from joserfc.jwk import ECKey, RSAKey

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import fail, feature_instances, free_port, write_static_config  # noqa: E402

PUBLISHED, INLINE, SHARED = "kid_pkjwt", "kid_pkjwt_inline", "kid_csjwt"
SHARED_SECRET = "client-secret-jwt-" + secrets.token_hex(16)
RSA = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
EC = ECKey.generate_key("P-256", parameters={"kid": "ec-1"})
FETCHES = []


class KeyServer(BaseHTTPRequestHandler):
    """The published client's own key server (its jwksUri)."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        FETCHES.append(self.path)
        body = json.dumps({"keys": [RSA.as_dict(private=False)]}).encode()
        self.send_response(200 if self.path == "/jwks.json" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def write_config(binary, work, jwks_uri):
    def document(password_hash):
        def service():
            return {"id": "app", "redirectUri": ["https://app.example.com/cb"], "provider": {"type": "static", "options": {
                "users": [{"username": "alice", "passwordHash": password_hash}]}}}

        return {"environments": [
            {"appKey": PUBLISHED, "clientAuth": {"method": "private_key_jwt", "jwksUri": jwks_uri}, "authServices": [service()]},
            {"appKey": INLINE, "clientAuth": {"method": "private_key_jwt",
                                              "jwks": json.dumps({"keys": [EC.as_dict(private=False)]})},
             "authServices": [service()]},
            {"appKey": SHARED, "appSecret": SHARED_SECRET, "clientAuth": {"method": "client_secret_jwt"},
             "authServices": [service()]},
        ]}

    return write_static_config(binary, work, "client-auth", document)


def assertion(key, client, audience, alg, jti=None, header=None):
    now = int(time.time())
    claims = {"iss": client, "sub": client, "aud": audience, "jti": jti or secrets.token_urlsafe(16), "iat": now, "exp": now + 60}
    return jws.serialize_compact(header or {"alg": alg, "kid": key.kid}, json.dumps(claims), key, algorithms=[alg])


def token(port, form):
    return requests.post(f"http://127.0.0.1:{port}/oauth/token", data=form, timeout=30)


def expect_invalid_client(answer, what):
    if answer.status_code != 401 or answer.json().get("error") != "invalid_client":
        fail(f"{what}: expected 401 invalid_client, got {answer.status_code} {answer.text[:200]}")
    print(f"  refused (401 invalid_client): {what}: {answer.json().get('error_description')}")


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-client-auth-")
    keys = ThreadingHTTPServer(("127.0.0.1", free_port()), KeyServer)
    threading.Thread(target=keys.serve_forever, daemon=True).start()
    config = write_config(binary, work, f"http://127.0.0.1:{keys.server_port}/jwks.json")
    issuer, instances, shared = feature_instances(binary, config, work, "client-auth")
    try:
        for instance in instances:
            instance.start()
        pa, pb = instances[0].port, instances[-1].port
        token_url = f"{issuer}/oauth/token"
        discovery = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
        for field, wanted in [("token_endpoint_auth_methods_supported", ["private_key_jwt", "client_secret_jwt"]),
                              ("introspection_endpoint_auth_methods_supported", ["private_key_jwt"]),
                              ("token_endpoint_auth_signing_alg_values_supported", ["RS256", "ES256", "PS256", "HS256"])]:
            if not set(wanted) <= set(discovery.get(field, [])):
                fail(f"discovery {field}: {discovery.get(field)}")

        # authlib, private_key_jwt with RS256; the broker fetches the key from the client's jwksUri.
        session = OAuth2Session(PUBLISHED, RSA.as_dict(private=True), token_endpoint_auth_method=PrivateKeyJWT(token_url, alg="RS256"),
                                revocation_endpoint_auth_method=PrivateKeyJWT(token_url, alg="RS256"))
        tokens = session.fetch_token(f"http://127.0.0.1:{pa}/oauth/token", grant_type="password", username="alice", password="pw")
        if not tokens.get("access_token") or not tokens.get("refresh_token"):
            fail(f"authlib PrivateKeyJWT password grant: {tokens}")
        if FETCHES != ["/jwks.json"]:
            fail(f"the jwksUri was fetched {FETCHES}")
        introspected = session.introspect_token(f"http://127.0.0.1:{pb}/oauth/introspect", token=tokens["access_token"])
        if introspected.status_code != 200 or introspected.json().get("active") is not True:
            fail(f"introspection with PrivateKeyJWT: {introspected.status_code} {introspected.text[:200]}")
        revoked = session.revoke_token(f"http://127.0.0.1:{pa}/oauth/revoke", token=tokens["refresh_token"])
        if revoked.status_code != 200:
            fail(f"revocation with PrivateKeyJWT: {revoked.status_code} {revoked.text[:200]}")
        after = token(pa, {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                           "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                           "client_assertion": assertion(RSA, PUBLISHED, token_url, "RS256")})
        if after.status_code != 400 or after.json().get("error") != "invalid_grant":
            fail(f"the revoked refresh token: {after.status_code} {after.text[:200]}")
        print(f"  authlib PrivateKeyJWT (RS256, jwksUri fetched {len(FETCHES)}×): tokens, introspection at "
              f"{'the other instance' if shared else 'the instance'}, revocation")

        inline = OAuth2Session(INLINE, EC, token_endpoint_auth_method=PrivateKeyJWT(token_url, alg="ES256"))
        if not inline.fetch_token(f"http://127.0.0.1:{pb}/oauth/token", grant_type="password", username="alice",
                                  password="pw").get("access_token"):
            fail("authlib PrivateKeyJWT with ES256 and inline jwks")
        secret = OAuth2Session(SHARED, SHARED_SECRET, token_endpoint_auth_method=ClientSecretJWT(token_url))
        if not secret.fetch_token(f"http://127.0.0.1:{pa}/oauth/token", grant_type="password", username="alice",
                                  password="pw").get("access_token"):
            fail("authlib ClientSecretJWT")
        print("  authlib PrivateKeyJWT (ES256, inline jwks) and ClientSecretJWT (HS256): tokens")

        password = {"grant_type": "password", "username": "alice", "password": "pw",
                    "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}
        once = assertion(RSA, PUBLISHED, token_url, "RS256")
        if token(pa, password | {"client_assertion": once}).status_code != 200:
            fail("a hand-made RS256 assertion")
        expect_invalid_client(token(pb, password | {"client_assertion": once}),
                              "the same assertion again" + (" at the other instance" if shared else ""))
        expect_invalid_client(requests.post(f"http://127.0.0.1:{pa}/oauth/token", auth=(SHARED, SHARED_SECRET), timeout=30,
                                            data={"grant_type": "password", "username": "alice", "password": "pw"}),
                              "client_secret_jwt's secret sent as Basic")
        expect_invalid_client(token(pa, {"grant_type": "password", "username": "alice", "password": "pw", "client_id": PUBLISHED}),
                              "no credentials for a private_key_jwt client")
        stranger = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
        expect_invalid_client(token(pa, password | {"client_assertion": assertion(stranger, PUBLISHED, token_url, "RS256")}),
                              "an assertion signed by another key with the same kid")
        expect_invalid_client(token(pa, password | {"client_assertion": assertion(RSA, PUBLISHED, "https://other.example.com/token", "RS256")}),
                              "an assertion for another server")
        now = int(time.time())
        unsigned = ".".join(base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode() for part in [
            {"alg": "none"}, {"iss": PUBLISHED, "sub": PUBLISHED, "aud": token_url, "jti": "x", "exp": now + 60}]) + "."
        expect_invalid_client(token(pa, password | {"client_assertion": unsigned}), "alg none")
        print("client-auth-check: OK")
    finally:
        for instance in instances:
            instance.stop()
        keys.shutdown()


if __name__ == "__main__":
    main()
