#!/usr/bin/env python3
"""Software authenticator that writes the WebAuthn fixtures the Swift tests read.

Every registration and assertion it produces is also checked with py_webauthn (an
independent implementation): valid ones must be accepted, broken ones refused, except
where this server is deliberately stricter (noted per case in "pyWebauthn").

Run:  .venv/bin/python Tests/WebAuthnTests/Fixtures/make_fixtures.py
Needs: pip install webauthn cbor2 cryptography   (into .venv)
Writes: Tests/WebAuthnTests/Fixtures/registrations.json, Tests/WebAuthnTests/Fixtures/assertions.json
"""
import base64
import hashlib
import json
import os
import struct
import sys

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
import webauthn

RP_ID = "id.example.com"
ORIGIN = "https://id.example.com"
AAGUID = bytes.fromhex("ea9b8d664d011d213ce4b6b48cb575d4")  # any model id; informational only
UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80
HERE = os.path.dirname(os.path.abspath(__file__))


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SoftAuthenticator:
    """One credential: a key pair, a credential ID and a signature counter."""

    def __init__(self, alg: int, rsa_bits: int = 2048):
        self.alg = alg
        if alg == -7:
            self.key = ec.generate_private_key(ec.SECP256R1())
        elif alg == -257:
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=rsa_bits)
        elif alg == -8:
            self.key = ed25519.Ed25519PrivateKey.generate()
        else:
            raise ValueError(alg)
        self.credential_id = os.urandom(32)

    def cose_key(self) -> bytes:
        pub = self.key.public_key()
        if self.alg == -7:
            numbers = pub.public_numbers()
            key = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        elif self.alg == -257:
            numbers = pub.public_numbers()
            n = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
            key = {1: 3, 3: -257, -1: n, -2: numbers.e.to_bytes(3, "big")}
        else:
            from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
            key = {1: 1, 3: -8, -1: 6, -2: pub.public_bytes(Encoding.Raw, PublicFormat.Raw)}
        return cbor2.dumps(key, canonical=True)

    def sign(self, message: bytes) -> bytes:
        if self.alg == -7:
            return self.key.sign(message, ec.ECDSA(hashes.SHA256()))  # DER-encoded
        if self.alg == -257:
            return self.key.sign(message, padding.PKCS1v15(), hashes.SHA256())
        return self.key.sign(message)

    def auth_data(self, rp_id, flags, counter, attested=False, extensions=None) -> bytes:
        data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", counter)
        if attested:
            data += AAGUID + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose_key()
        if extensions is not None:
            data += cbor2.dumps(extensions, canonical=True)
        return data


def client_data(kind, challenge, origin=ORIGIN, cross_origin=False) -> bytes:
    # Field order and spacing as Chromium writes it.
    return json.dumps({"type": kind, "challenge": b64u(challenge), "origin": origin,
                       "crossOrigin": cross_origin}, separators=(",", ":")).encode()


def credential_json(auth, response):
    return {"id": b64u(auth.credential_id), "rawId": b64u(auth.credential_id), "type": "public-key",
            "response": {k: b64u(v) for k, v in response.items()}, "clientExtensionResults": {}}


def py_verify(fn, **kwargs):
    try:
        result = fn(**kwargs)
        return "accepted", result
    except Exception as error:  # py_webauthn's Invalid*Response, or its parsing errors
        return f"refused: {type(error).__name__}: {error}", None


def register(name, auth, *, fmt="none", flags=UP | UV | BE | BS | AT, counter=0, kind="webauthn.create",
             origin=ORIGIN, rp_id=RP_ID, cross_origin=False, challenge=None, expected_challenge=None,
             extensions=None, require_uv=False, expect=None, py_expect="accepted"):
    challenge = challenge or os.urandom(32)
    expected_challenge = expected_challenge or challenge
    cdj = client_data(kind, challenge, origin, cross_origin)
    if extensions is not None:
        flags |= ED
    auth_data = auth.auth_data(rp_id, flags, counter, attested=bool(flags & AT), extensions=extensions)
    statement = {}
    if fmt == "packed":  # self attestation: signed by the credential key itself, no x5c
        statement = {"alg": auth.alg, "sig": auth.sign(auth_data + hashlib.sha256(cdj).digest())}
    attestation_object = cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": auth_data})
    credential = credential_json(auth, {"clientDataJSON": cdj, "attestationObject": attestation_object})
    outcome, result = py_verify(
        webauthn.verify_registration_response, credential=credential, expected_challenge=expected_challenge,
        expected_rp_id=RP_ID, expected_origin=ORIGIN, require_user_verification=require_uv,
        supported_pub_key_algs=[webauthn.helpers.structs.COSEAlgorithmIdentifier(a) for a in (-7, -257, -8)])
    check(name, outcome, py_expect)
    if expect is None:  # valid: the Swift result must equal py_webauthn's
        expect = {"ok": True, "credentialID": b64u(result.credential_id), "publicKey": b64u(result.credential_public_key),
                  "algorithm": auth.alg, "signCount": result.sign_count, "aaguid": result.aaguid,
                  "userVerified": result.user_verified, "backupEligible": result.credential_device_type == "multi_device",
                  "backedUp": result.credential_backed_up, "fmt": result.fmt}
    return {"name": name, "challenge": b64u(expected_challenge), "requireUserVerification": require_uv,
            "credential": credential, "expect": expect, "pyWebauthn": outcome}


def assert_(name, auth, *, stored_count, counter, flags=UP | UV | BE | BS, kind="webauthn.get", origin=ORIGIN,
            rp_id=RP_ID, challenge=None, expected_challenge=None, require_uv=False, tamper=None, expect=None,
            py_expect="accepted"):
    challenge = challenge or os.urandom(32)
    expected_challenge = expected_challenge or challenge
    cdj = client_data(kind, challenge, origin)
    auth_data = auth.auth_data(rp_id, flags, counter)
    signature = auth.sign(auth_data + hashlib.sha256(cdj).digest())
    if tamper == "signature":
        signature = signature[:-1] + bytes([signature[-1] ^ 0x01])
    elif tamper == "authenticatorData":  # raise the counter after signing
        auth_data = auth_data[:36] + bytes([auth_data[36] ^ 0x80])
    credential = credential_json(auth, {"clientDataJSON": cdj, "authenticatorData": auth_data,
                                        "signature": signature, "userHandle": b"user-1234"})
    outcome, result = py_verify(
        webauthn.verify_authentication_response, credential=credential, expected_challenge=expected_challenge,
        expected_rp_id=RP_ID, expected_origin=ORIGIN, credential_public_key=auth.cose_key(),
        credential_current_sign_count=stored_count, require_user_verification=require_uv)
    check(name, outcome, py_expect)
    if expect is None:
        expect = {"ok": True, "signCount": result.new_sign_count, "userVerified": result.user_verified,
                  "backedUp": result.credential_backed_up}
    return {"name": name, "challenge": b64u(expected_challenge), "requireUserVerification": require_uv,
            "storedCredential": {"publicKey": b64u(auth.cose_key()), "signCount": stored_count},
            "credential": credential, "expect": expect, "pyWebauthn": outcome}


def check(name, outcome, expected):
    ok = outcome == "accepted" if expected == "accepted" else outcome.startswith("refused")
    print(f"{'ok ' if ok else 'BAD'} {name:32} py_webauthn {outcome}")
    if not ok:
        sys.exit(f"{name}: py_webauthn gave '{outcome}', expected {expected}")


def error(case, **values):
    return {"ok": False, "error": case, **values}


def main():
    es256, rs256 = SoftAuthenticator(-7), SoftAuthenticator(-257)
    eddsa, rsa1024 = SoftAuthenticator(-8), SoftAuthenticator(-257, rsa_bits=1024)
    other = os.urandom(32)
    registrations = [
        register("es256-none", es256),
        register("es256-packed-self-ext", es256, fmt="packed", extensions={"credProtect": 2}),
        register("rs256-none", rs256, flags=UP | UV | AT, counter=5),
        register("rs256-packed-self", rs256, fmt="packed", flags=UP | AT, counter=1),
        register("es256-no-uv-not-required", es256, flags=UP | AT),
        register("es256-no-uv-required", es256, flags=UP | AT, require_uv=True,
                 expect=error("userNotVerified"), py_expect="refused"),
        register("reg-wrong-type", es256, kind="webauthn.get", expect=error("ceremonyTypeMismatch"), py_expect="refused"),
        register("reg-wrong-origin", es256, origin="https://evil.example", expect=error("originMismatch"), py_expect="refused"),
        register("reg-wrong-rpid", es256, rp_id="evil.example", expect=error("rpIDHashMismatch"), py_expect="refused"),
        register("reg-wrong-challenge", es256, expected_challenge=other, expect=error("challengeMismatch"), py_expect="refused"),
        register("reg-no-up", es256, flags=UV | AT, expect=error("userNotPresent"), py_expect="refused"),
        register("reg-no-at", es256, flags=UP | UV, expect=error("attestedCredentialDataMissing"), py_expect="refused"),
        # Stricter than py_webauthn, by the product contract:
        register("eddsa-none", eddsa, expect=error("unsupportedAlgorithm", algorithm=-8)),
        register("rsa1024-none", rsa1024, expect=error("rsaKeyTooSmall", bits=1024)),
        register("reg-cross-origin", es256, cross_origin=True, expect=error("crossOriginNotAllowed")),
    ]
    assertions = [
        assert_("es256-get-counter-0-0", es256, stored_count=0, counter=0),
        assert_("es256-get-no-uv", es256, stored_count=0, counter=0, flags=UP),
        assert_("rs256-get", rs256, stored_count=5, counter=6, flags=UP | UV),
        assert_("rs256-get-counter-equal", rs256, stored_count=6, counter=6, flags=UP | UV,
                expect=error("counterDidNotIncrease", stored=6, received=6), py_expect="refused"),
        assert_("rs256-get-counter-lower", rs256, stored_count=6, counter=3, flags=UP | UV,
                expect=error("counterDidNotIncrease", stored=6, received=3), py_expect="refused"),
        assert_("es256-get-counter-reset-to-0", es256, stored_count=7, counter=0,
                expect=error("counterDidNotIncrease", stored=7, received=0), py_expect="refused"),
        assert_("get-wrong-type", es256, stored_count=0, counter=0, kind="webauthn.create",
                expect=error("ceremonyTypeMismatch"), py_expect="refused"),
        assert_("get-wrong-origin", es256, stored_count=0, counter=0, origin="https://id.example.com:8443",
                expect=error("originMismatch"), py_expect="refused"),
        assert_("get-wrong-rpid", es256, stored_count=0, counter=0, rp_id="example.com",
                expect=error("rpIDHashMismatch"), py_expect="refused"),
        assert_("get-wrong-challenge", es256, stored_count=0, counter=0, expected_challenge=other,
                expect=error("challengeMismatch"), py_expect="refused"),
        assert_("get-no-up", es256, stored_count=0, counter=0, flags=UV, expect=error("userNotPresent"), py_expect="refused"),
        assert_("get-no-uv-required", es256, stored_count=0, counter=0, flags=UP, require_uv=True,
                expect=error("userNotVerified"), py_expect="refused"),
        assert_("es256-tampered-signature", es256, stored_count=0, counter=0, tamper="signature",
                expect=error("signatureInvalid"), py_expect="refused"),
        assert_("rs256-tampered-signature", rs256, stored_count=1, counter=2, flags=UP | UV, tamper="signature",
                expect=error("signatureInvalid"), py_expect="refused"),
        assert_("es256-tampered-authdata", es256, stored_count=0, counter=0, tamper="authenticatorData",
                expect=error("signatureInvalid"), py_expect="refused"),
    ]
    for file, cases in (("registrations.json", registrations), ("assertions.json", assertions)):
        with open(os.path.join(HERE, file), "w") as out:
            json.dump({"rpId": RP_ID, "origin": ORIGIN, "cases": cases}, out, indent=1)
            out.write("\n")
    print(f"wrote {len(registrations)} registrations and {len(assertions)} assertions")


if __name__ == "__main__":
    main()
