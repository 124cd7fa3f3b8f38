"""DPoP rows (docs/dpop.md): a refresh whose family is bound to a key (the proof checked, its jti
written to the replay cache, then the usual rotation), and a validate of a bound JWT access token
with a fresh proof each time. Proofs are made before the row (each is single use), ES256 with the
`cryptography` package."""
import base64
import hashlib
import json
import time
import uuid

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

import broker
import load

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Key:
    """A client's P-256 key and the proofs it signs."""

    def __init__(self):
        self.private = ec.generate_private_key(ec.SECP256R1())
        numbers = self.private.public_key().public_numbers()
        self.jwk = {"kty": "EC", "crv": "P-256", "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}

    def proof(self, method, url, access_token=None):
        header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk}
        claims = {"jti": uuid.uuid4().hex, "htm": method, "htu": url, "iat": int(time.time())}
        if access_token:
            claims["ath"] = b64(hashlib.sha256(access_token.encode()).digest())
        signing_input = b64(json.dumps(header, separators=(",", ":")).encode()) + "." + \
            b64(json.dumps(claims, separators=(",", ":")).encode())
        r, s = decode_dss_signature(self.private.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def bound_tokens(port, key):
    form = {"grant_type": "password", "username": "alice", "password": "alicepw", "client_id": broker.APP_KEY}
    headers = {"Authorization": broker.basic_header(), "DPoP": key.proof("POST", f"http://127.0.0.1:{port}/oauth/token")}
    status, _, data = broker.request(port, "POST", "/oauth/token", headers=headers, form=form)
    tokens = json.loads(data) if status == 200 else {}
    if tokens.get("token_type") != "DPoP":
        raise SystemExit(f"DPoP bench: no bound tokens: {status} {data[:200]!r}")
    return tokens


def rows(port, common, pool_size, prepare):
    issuer = f"http://127.0.0.1:{port}"
    key = Key()
    refresh_tokens = prepare(pool_size, lambda _: bound_tokens(port, key)["refresh_token"])
    refreshes = [f"{key.proof('POST', issuer + '/oauth/token')} {token}" for token in refresh_tokens]
    access = bound_tokens(port, key)["access_token"]
    proofs = [key.proof("GET", issuer + "/oauth/validate", access) for _ in range(pool_size * 4)]
    return [
        load.run_wrk("refresh (rotating, DPoP-bound)", **common, method="POST", path="/oauth/token",
                     headers={"Authorization": broker.basic_header(), **FORM, "DPoP": "{}"}, pool=refreshes,
                     body="grant_type=refresh_token&refresh_token={}"),
        load.run_wrk("validate (JWT, DPoP proof)", **common, path="/oauth/validate",
                     headers={"Authorization": f"DPoP {access}", "DPoP": "{}"}, pool=proofs),
    ]
