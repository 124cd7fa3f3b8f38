#!/usr/bin/env python3
"""Token exchange (RFC 8693; docs/token-exchange.md) end to end over HTTP on two instances that share
state: real broker processes, an AuthLink stand-in (multi_instance_support) that counts its refreshes.

    scripts/token-exchange-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database and each exchange goes to the
instance that did not issue the token; without it, one instance on SQLite.

Checks:
- another API, less scope: the Orders API exchanges alice's token (from instance A) at instance B for
  one aimed at Billing with scope api:billing only; it validates at A; more scope is invalid_scope,
  an API not allowed invalid_target, a client without tokenExchange unauthorized_client;
- acting for someone: with the support tool's token as actor_token the new token names it in act;
- the upstream token for a data link's back end: alice's AuthLink token is inside its refresh margin;
  20 concurrent exchanges (audience=crm), spread over both instances, all get the refreshed token,
  and the AuthLink saw exactly one refresh; a data link not allowed is unauthorized_client.
"""
import base64
import json
import os
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import ThreadingHTTPServer

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import REFRESHES, AuthLink, code_flow_tokens, fail, feature_instances, write_static_config  # noqa: E402

APP, SECRET, REDIRECT = "kid_tx", "token-exchange-secret-1", "https://portal.example.com/cb"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS = "urn:ietf:params:oauth:token-type:access_token"
ORDERS, BILLING = "https://orders.example.com", "https://billing.example.com"


class ShortLivedLink(AuthLink):
    """The AuthLink stand-in, whose refreshed tokens last `LIFETIME[0]` seconds: 1 s (always due
    again) until the concurrent exchanges, 3600 s for them."""
    LIFETIME = [1]

    def answer(self, status, payload):
        if self.path == "/refresh" and "expires_in" in payload:
            payload = dict(payload, expires_in=ShortLivedLink.LIFETIME[0])
        super().answer(status, payload)


def write_config(binary, work, link):
    def document(password_hash):
        static = {"type": "static", "options": {"users": [{"username": "staff", "passwordHash": password_hash}]}}
        return {"environments": [{
            "appKey": APP, "appSecret": SECRET, "defaultAuthService": "employees",
            "apiResources": [{"scope": "api:orders", "audience": ORDERS}, {"scope": "api:billing", "audience": BILLING}],
            "dataLinks": [{"name": "crm", "url": "https://crm.example.com/api"},
                          {"name": "ledger", "url": "https://ledger.example.com/api"}],
            "authServices": [
                {"id": "employees", "redirectUri": [REDIRECT],
                 "provider": {"type": "custom", "remoteService": f"{link}/login", "options": {"refreshUrl": f"{link}/refresh"},
                              "allowedAttributes": ["id", "email"]}},
                {"id": "orders", "redirectUri": ["https://orders.example.com/unused"], "provider": static,
                 "tokenExchange": {"audiences": [BILLING], "actors": [f"{APP}.support"], "dataLinks": ["crm"]}},
                {"id": "support", "redirectUri": [REDIRECT], "provider": static},
            ],
        }]}

    return write_static_config(binary, work, "tx", document)


def tokens(port, client, user, password, scope):
    return code_flow_tokens(port, client, SECRET, REDIRECT, user, password, scope)

def exchange(port, client, subject, **fields):
    return requests.post(f"http://127.0.0.1:{port}/oauth/token", auth=(APP, SECRET), timeout=20, data={
        "grant_type": EXCHANGE, "client_id": client, "subject_token": subject, "subject_token_type": ACCESS, **fields})


def claims(token):
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def expect(answer, status, error, what):
    body = answer.json() if answer.headers.get("Content-Type", "").startswith("application/json") else {}
    if answer.status_code != status or (error and body.get("error") != error):
        fail(f"{what}: expected {status} {error or ''}, got {answer.status_code} {answer.text[:300]}")
    return body


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-token-exchange-")
    authlink = ThreadingHTTPServer(("127.0.0.1", 0), ShortLivedLink)
    threading.Thread(target=authlink.serve_forever, daemon=True).start()
    config = write_config(binary, work, f"http://127.0.0.1:{authlink.server_address[1]}")
    issuer, instances, shared = feature_instances(binary, config, work, "token-exchange")
    try:
        for instance in instances:
            instance.start()
        pa, pb = instances[0].port, instances[-1].port
        if EXCHANGE not in requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()["grant_types_supported"]:
            fail("discovery does not list the token-exchange grant")

        # "short…" users get an AuthLink token already inside the broker's refresh margin, and every
        # refresh until the concurrent exchanges below brings one that is due again.
        alice = tokens(pa, APP, "short-alice", "pw", "openid api:orders api:billing")["access_token"]
        billing = expect(exchange(pb, f"{APP}.orders", alice, resource=BILLING, scope="api:billing"), 200, None,
                         "Orders exchanging alice's token for Billing")
        payload = claims(billing["access_token"])
        if payload.get("aud") not in (BILLING, [BILLING]) or payload.get("scope") != "api:billing" or payload["sub"] != claims(alice)["sub"]:
            fail(f"the exchanged token: aud {payload.get('aud')} scope {payload.get('scope')}")
        if requests.get(f"http://127.0.0.1:{pa}/oauth/validate", timeout=10,
                        headers={"Authorization": f"Bearer {billing['access_token']}"}).status_code != 200:
            fail("the exchanged token does not validate at the other instance")
        expect(exchange(pb, f"{APP}.orders", alice, scope="api:billing email"), 400, "invalid_scope", "more scope than brought")
        expect(exchange(pb, f"{APP}.orders", alice, resource=ORDERS), 400, "invalid_target", "an API not in audiences")
        expect(exchange(pb, f"{APP}.support", alice, scope="api:billing"), 400, "unauthorized_client",
               "a client without tokenExchange")
        print("  another API, less scope: aud Billing, scope api:billing, valid on the other instance; wider, "
              "other API and unauthorized clients refused")

        staff = tokens(pb, f"{APP}.support", "staff", "pw", "openid")["access_token"]
        acting = expect(exchange(pa, f"{APP}.orders", alice, scope="api:billing", actor_token=staff,
                                 actor_token_type=ACCESS), 200, None, "an exchange with the support tool as actor")
        if claims(acting["access_token"]).get("act", {}).get("client_id") != f"{APP}.support":
            fail(f"act: {claims(acting['access_token']).get('act')}")
        print(f"  acting for alice: act names {APP}.support")

        # Alice's upstream token is due (1 s left): the next refresh brings one that lasts.
        ShortLivedLink.LIFETIME[0] = 3600
        REFRESHES.clear()
        ports = [pa, pb] * 10
        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(lambda port: exchange(port, f"{APP}.orders", alice, audience="crm"), ports))
        upstream = {expect(answer, 200, None, "the upstream token for crm")["access_token"] for answer in answers}
        if upstream != {"tok-refreshed-rt-short-alice"} or sum(REFRESHES.values()) != 1:
            fail(f"20 concurrent upstream exchanges: tokens {upstream}, AuthLink refreshes {dict(REFRESHES)}")
        expect(exchange(pa, f"{APP}.orders", alice, audience="ledger"), 400, "unauthorized_client", "a data link not allowed")
        print("  the upstream token for crm: 20 concurrent exchanges on both instances, one AuthLink refresh"
              + (" (two instances on PostgreSQL)" if shared else " (SQLite)"))
    finally:
        for instance in instances:
            instance.stop()
        authlink.shutdown()
    print("token-exchange-check: OK")


if __name__ == "__main__":
    main()
