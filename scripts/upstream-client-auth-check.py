#!/usr/bin/env python3
"""`clientAuth: private_key_jwt` toward an identity source (docs/connectors/oauth2-oidc.md) end to
end against a provider that requires it: Glewlwyd 2.7 (Debian's C OAuth2/OIDC server, started by
scripts/bench/glewlwyd-start.sh on loopback) with clients whose only token endpoint
authentication is `private_key_jwt` and whose public keys it holds (EC P-256 and RSA-2048).

    scripts/upstream-client-auth-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

Checks, for each key type: a person signs in through the broker's `oauth2` auth service in
password mode (the broker's password grant at Glewlwyd carries a signed assertion, no secret);
a back end exchanges the broker token for the upstream one (docs/token-exchange.md), which is
Glewlwyd's token for that client and user; when it nears its end the broker refreshes it with a
new assertion and the exchange hands out the new token, which Glewlwyd's userinfo accepts. Then:
an auth service holding a key Glewlwyd does not know cannot sign anyone in (an error for the app,
no token, no 500), and Glewlwyd refuses a replayed assertion, so each request carried a new one.
"""
import base64
import json
import os
import sys
import tempfile
import time
import urllib.parse

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "bench"))
import glewlwyd_peer  # noqa: E402
from multi_instance_support import Instance, call, fail, free_port, write_static_config  # noqa: E402

APP, SECRET = "kid_upjwt", "upstream-client-auth-check-secret"
REDIRECT = "http://localhost:3000/callback"
USER = glewlwyd_peer.USERNAMES[0]
# Long enough that the sign-in's token goes out as it is, short enough that a wait brings it
# within the broker's 30-second refresh margin.
UPSTREAM_TTL = 36
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"


def pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def public_pem(key):
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def configure_glewlwyd(port, clients):
    """The OIDC plugin accepts client assertions (`request-parameter-allow`) checked against the
    client's `pubkey` property, with short access tokens; `clients` maps client id to public PEM,
    each client allowed only `private_key_jwt`."""
    call = glewlwyd_peer.admin_api(port, fail)
    glewlwyd_peer.update_plugin(call, {"request-parameter-allow": True, "client-pubkey-parameter": "pubkey",
                                       "access-token-duration": UPSTREAM_TTL})
    for client_id, public in clients.items():
        call("POST", "/api/client/", {
            "client_id": client_id, "name": client_id, "enabled": True, "confidential": True,
            "scope": [glewlwyd_peer.SCOPE, "openid"], "redirect_uri": [REDIRECT],
            "authorization_type": ["password", "refresh_token"], "token_endpoint_auth_method": ["private_key_jwt"],
            "pubkey": public})


def write_config(binary, work, glewlwyd_base, services):
    """`services`: auth service id → (Glewlwyd client id, private PEM)."""
    def upstream(service_id, client_id, private):
        return {"id": service_id, "name": service_id, "redirectUri": [REDIRECT], "refresh": True, "provider": {
            "type": "oauth2", "remoteService": f"{glewlwyd_base}/token",
            "options": {"clientId": client_id, "grantType": "password", "clientAuth": "private_key_jwt",
                        "privateKey": private, "scope": f"openid {glewlwyd_peer.SCOPE}",
                        "userIdEndpoint": f"{glewlwyd_base}/userinfo", "userIdAttribute": "sub"}}}

    def document(password_hash):
        services_list = [upstream(name, client_id, private) for name, (client_id, private) in services.items()]
        services_list.append({"id": "api", "redirectUri": ["https://api.example.com/unused"],
                              "tokenExchange": {"dataLinks": ["crm"]},
                              "provider": {"type": "static", "options": {"users": []}}})
        return {"environments": [{"appKey": APP, "appSecret": SECRET, "defaultAuthService": next(iter(services)),
                                  "dataLinks": [{"name": "crm", "url": "http://127.0.0.1:9/unused"}],
                                  "authServices": services_list}]}

    return write_static_config(binary, work, "upstream-client-auth", document)


def basic(client_id):
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{SECRET}".encode()).decode()}


def sign_in(port, service):
    """The automated grant through `service`; returns (status, Location, body)."""
    client_id = f"{APP}.{service}"
    status, _, body = call(port, "POST", "/oauth/auth", {"client_id": client_id, "redirect_uri": REDIRECT, "response_type": "code"})
    if status != 200:
        fail(f"/oauth/auth for {service}: {status} {body[:200]}")
    temp = urllib.parse.urlsplit(json.loads(body)["temp_login_uri"])
    status, headers, body = call(port, "POST", temp.path, {"client_id": client_id, "redirect_uri": REDIRECT,
                                                           "response_type": "code", "username": USER,
                                                           "password": glewlwyd_peer.PASSWORD})
    return status, headers.get("Location", headers.get("location", "")), body


def broker_token(port, service):
    status, location, body = sign_in(port, service)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("code")
    if status not in (302, 303) or not code:
        fail(f"sign-in through {service}: {status} {location} {body[:300]}")
    client_id = f"{APP}.{service}"
    status, _, body = call(port, "POST", "/oauth/token", {"grant_type": "authorization_code", "code": code[0],
                                                          "redirect_uri": REDIRECT, "client_id": client_id}, basic(client_id))
    if status != 200:
        fail(f"code exchange for {service}: {status} {body[:300]}")
    return json.loads(body)["access_token"]


def upstream_token(port, access):
    """The data link's back end exchanges the broker token for the user's upstream token."""
    status, _, body = call(port, "POST", "/oauth/token", {
        "grant_type": EXCHANGE, "client_id": f"{APP}.api", "subject_token": access,
        "subject_token_type": ACCESS_TOKEN_TYPE, "audience": "crm"}, basic(f"{APP}.api"))
    if status != 200:
        fail(f"upstream-token exchange: {status} {body[:300]}")
    answer = json.loads(body)
    if answer.get("issued_token_type") != ACCESS_TOKEN_TYPE:
        fail(f"upstream-token exchange issued {answer.get('issued_token_type')}")
    return answer["access_token"]


def check_glewlwyd_token(token, client_id, jwks, issuer):
    """Glewlwyd signed it, for `client_id`, and its userinfo accepts it; returns its claims."""
    header = jwt.get_unverified_header(token)
    key = next((jwt.PyJWK(entry) for entry in jwks["keys"] if entry.get("kid") == header.get("kid")), None)
    if key is None:
        fail(f"the upstream token's kid {header.get('kid')} is not in Glewlwyd's JWKS")
    claims = jwt.decode(token, key, algorithms=[header["alg"]], options={"verify_aud": False}, issuer=issuer)
    if claims.get("client_id") != client_id:
        fail(f"the upstream token is {claims.get('client_id')}'s, not {client_id}'s")
    answer = requests.get(f"{issuer}/userinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    if answer.status_code != 200:
        fail(f"Glewlwyd's userinfo refused the upstream token: {answer.status_code} {answer.text[:200]}")
    return claims


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-upstream-client-auth-")
    glewlwyd_dir = os.path.join(work, "glewlwyd")
    os.environ.setdefault("GLEWLWYD_PBKDF2_ITERATIONS", "1000")  # its 64 users are made at start
    server = glewlwyd_peer.start(glewlwyd_dir)
    instance = None
    try:
        issuer = server["ISSUER"]
        ec_key, rsa_key, stranger = (ec.generate_private_key(ec.SECP256R1()), rsa.generate_private_key(65537, 2048),
                                     ec.generate_private_key(ec.SECP256R1()))
        configure_glewlwyd(server["PORT"], {"idc-ec": public_pem(ec_key), "idc-rsa": public_pem(rsa_key)})
        services = {"glew-ec": ("idc-ec", pem(ec_key)), "glew-rsa": ("idc-rsa", pem(rsa_key)),
                    "glew-stranger": ("idc-ec", pem(stranger))}
        config = write_config(binary, work, issuer, services)
        instance = Instance("upstream-client-auth", binary, config, f"sqlite:{work}/db.sqlite",
                            f"http://127.0.0.1:{free_port()}", work)
        instance.issuer = f"http://127.0.0.1:{instance.port}"
        instance.start()
        port = instance.port
        jwks = requests.get(f"{issuer}/jwks", timeout=10).json()

        for service, (client_id, _) in list(services.items())[:2]:
            access = broker_token(port, service)
            first = upstream_token(port, access)
            claims = check_glewlwyd_token(first, client_id, jwks, issuer)
            # Within 30 s of its end the broker refreshes it (refresh_token grant, a new assertion).
            time.sleep(max(0, claims["exp"] - time.time() - 30 + 1.5))
            second = upstream_token(port, access)
            if second == first:
                fail(f"{service}: the upstream token was not refreshed near its end")
            check_glewlwyd_token(second, client_id, jwks, issuer)
            kind = "EC P-256, ES256" if service == "glew-ec" else "RSA-2048, RS256"
            print(f"  {service} ({kind}): signed in with an assertion, upstream token {client_id}'s; "
                  f"refreshed with a new assertion; Glewlwyd's userinfo accepts both")

        status, location, body = sign_in(port, "glew-stranger")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        if "code" in query or status >= 500 and status != 502:
            fail(f"a key Glewlwyd does not know signed someone in or broke the broker: {status} {location} {body[:200]}")
        what = query.get("error", [f"HTTP {status}"])[0]
        print(f"  a key Glewlwyd does not know: no sign-in ({what})")

        now = int(time.time())
        token_url = f"{issuer}/token"
        replayed = jwt.encode({"iss": "idc-ec", "sub": "idc-ec", "aud": token_url, "iat": now, "exp": now + 60,
                               "jti": "upstream-check-once"}, ec_key, algorithm="ES256")
        form = {"grant_type": "password", "username": USER, "password": glewlwyd_peer.PASSWORD,
                "scope": glewlwyd_peer.SCOPE, "client_id": "idc-ec", "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": replayed}
        once, again = requests.post(token_url, data=form, timeout=10), requests.post(token_url, data=form, timeout=10)
        if once.status_code != 200 or again.status_code == 200:
            fail(f"Glewlwyd should accept an assertion once: {once.status_code}, then {again.status_code}")
        print("  Glewlwyd takes each assertion once (so every broker request carried a new one)")
        print("upstream-client-auth-check: OK")
    finally:
        if instance is not None:
            instance.stop()
        glewlwyd_peer.stop(glewlwyd_dir)


if __name__ == "__main__":
    main()
