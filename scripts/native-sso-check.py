#!/usr/bin/env python3
"""Native SSO for mobile apps (OpenID Connect Native SSO 1.0; docs/native-sso.md) end to end over
HTTP: real broker processes, the apps' requests made with `requests`.

    scripts/native-sso-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database, and the first app signs in at
one while the second exchanges at the other; without it, one instance on SQLite.

Checks:
- discovery lists `device_sso` and the token-exchange grant;
- the first app (`mail`) signs in with scope "openid device_sso": a device_secret, and an ID token
  whose ds_hash is the left half of the secret's SHA-256;
- the second app (`calendar`, other instance) exchanges that ID token and secret for tokens of its
  own in the same session (same sid and sub, aud its own client id), with a device secret of its own;
- refused with invalid_grant: a device secret of another sign-in, a tampered ID token; with
  unauthorized_client an app of an auth service without nativeSSO;
- signing the user out (`idconnect sessions revoke`) ends both apps' tokens (validate 401 at either
  instance) and the secret stops working.
"""
import base64
import hashlib
import json
import os
import subprocess
import time
import sys
import tempfile

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import code_flow_tokens, fail, feature_instances, write_static_config  # noqa: E402

APP, SECRET, REDIRECT = "kid_sso", "native-sso-secret-123", "com.example.mail:/cb"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
SECRET_TYPE = "urn:x-oath:params:oauth:token-type:device-secret"


def write_config(binary, work):
    def document(password_hash):
        users = [{"username": name, "passwordHash": password_hash} for name in ("alice", "bob")]
        provider = {"type": "static", "options": {"users": users}}
        service = {"redirectUri": [REDIRECT], "provider": provider}
        return {"environments": [{
            "appKey": APP, "appSecret": SECRET, "defaultAuthService": "mail",
            "authServices": [service | {"id": "mail", "nativeSSO": True}, service | {"id": "calendar", "nativeSSO": True},
                             service | {"id": "plain"}],
        }]}

    return write_static_config(binary, work, "sso", document)


def sign_in(port, client, user):
    return code_flow_tokens(port, client, SECRET, REDIRECT, user, scope="openid device_sso")

def exchange(port, client, id_token, device_secret):
    return requests.post(f"http://127.0.0.1:{port}/oauth/token", auth=(client, SECRET), timeout=10, data={
        "grant_type": EXCHANGE, "client_id": client, "scope": "openid device_sso",
        "subject_token": id_token, "subject_token_type": ID_TOKEN_TYPE,
        "actor_token": device_secret, "actor_token_type": SECRET_TYPE})


def claims(token):
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def expect_error(answer, status, error, what):
    body = answer.json() if answer.headers.get("Content-Type", "").startswith("application/json") else {}
    if answer.status_code != status or body.get("error") != error:
        fail(f"{what}: expected {status} {error}, got {answer.status_code} {answer.text[:200]}")


def validate(port, access):
    return requests.get(f"http://127.0.0.1:{port}/oauth/validate", headers={"Authorization": f"Bearer {access}"},
                        timeout=10).status_code


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-native-sso-")
    config = write_config(binary, work)
    issuer, instances, shared = feature_instances(binary, config, work, "native-sso")
    try:
        for instance in instances:
            instance.start()
        pa, pb = instances[0].port, instances[-1].port
        discovery = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
        if "device_sso" not in discovery["scopes_supported"] or EXCHANGE not in discovery["grant_types_supported"]:
            fail("discovery does not offer device_sso and the token exchange")

        mail = sign_in(pa, APP, "alice")
        secret, id_token = mail.get("device_secret"), mail["id_token"]
        digest = hashlib.sha256((secret or "").encode()).digest()
        if not secret or claims(id_token).get("ds_hash") != base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode():
            fail(f"the first app got no device_secret or a wrong ds_hash: {sorted(mail)}")
        print("  the first app signed in with device_sso: a device_secret and its ds_hash in the ID token")

        answer = exchange(pb, f"{APP}.calendar", id_token, secret)
        if answer.status_code != 200:
            fail(f"the second app's exchange: {answer.status_code} {answer.text[:300]}")
        calendar = answer.json()
        first, second = claims(id_token), claims(calendar["id_token"])
        if (second["sid"], second["sub"]) != (first["sid"], first["sub"]) or second["aud"] != f"{APP}.calendar":
            fail(f"the second app's ID token: sid/sub/aud {second.get('sid')} {second.get('sub')} {second.get('aud')}")
        if not calendar.get("device_secret") or validate(pa, calendar["access_token"]) != 200:
            fail("the second app's tokens: no device secret of its own, or an access token validate refuses")
        print("  the second app (at the other instance, when two run) exchanged the ID token and secret: its own tokens in the same session")

        bob = sign_in(pb, APP, "bob")
        expect_error(exchange(pa, f"{APP}.calendar", id_token, bob["device_secret"]), 400, "invalid_grant",
                     "another sign-in's device secret")
        header, payload, signature = id_token.split(".")
        forged = dict(first, sub="someone-else")
        tampered = ".".join([header, base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode(), signature])
        expect_error(exchange(pa, f"{APP}.calendar", tampered, secret), 400, "invalid_grant", "a tampered ID token")
        expect_error(exchange(pa, f"{APP}.plain", id_token, secret), 400, "unauthorized_client",
                     "an app whose auth service has no nativeSSO")
        print("  refused: another sign-in's secret, a tampered ID token (invalid_grant), an app without nativeSSO")

        revoke = subprocess.run([binary, "sessions", "revoke", "--user", "alice", "--config", config,
                                 "--storage", instances[0].storage], capture_output=True, text=True, timeout=60)
        if revoke.returncode != 0:
            fail(f"sessions revoke: {revoke.stderr[-300:]}")
        time.sleep(0.6)   # a broker keeps what it read about a token for at most 0.5 s
        if validate(pa, mail["access_token"]) != 401 or validate(pb, calendar["access_token"]) != 401:
            fail("after sessions revoke an app's access token still validates")
        expect_error(exchange(pb, f"{APP}.calendar", id_token, secret), 400, "invalid_grant", "the secret of an ended sign-in")
        if validate(pa, bob["access_token"]) != 200:
            fail("bob's sign-in ended with alice's")
        print("  sessions revoke ended both apps' tokens and the secret; another user's sign-in went on"
              + (" (two instances on PostgreSQL)" if shared else " (SQLite)"))
    finally:
        for instance in instances:
            instance.stop()
    print("native-sso-check: OK")


if __name__ == "__main__":
    main()
