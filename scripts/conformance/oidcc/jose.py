"""id_token and JWKS helpers: parsing a JWT, key types and algorithms, JWK checks."""

from __future__ import annotations

import base64
import hashlib
import json
import jwt
import re
from typing import Any, Optional

from .core import CondError


def parse_jwt(value: str) -> dict:
    """JWTUtil.jwtStringToJsonObjectForEnvironment: {value, header, claims}."""
    parts = value.split(".")
    if len(parts) == 5:
        raise CondError("id_token is encrypted (JWE); encrypted id_tokens are not expected for a static client without jwks")
    if len(parts) != 3:
        raise CondError("not a JWT (expected three dot-separated parts)")
    try:
        header = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except Exception as e:
        raise CondError(f"could not parse JWT: {e}")
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise CondError("JWT header or claims are not JSON objects")
    return {"value": value, "header": header, "claims": claims}


KTY_FOR_ALG = {"RS": "RSA", "PS": "RSA", "ES": "EC", "HS": "oct", "Ed": "OKP"}


def kty_for_alg(alg: Optional[str]) -> Optional[str]:
    if not alg:
        return None
    if alg in ("EdDSA", "Ed25519", "Ed448"):
        return "OKP"
    return KTY_FOR_ALG.get(alg[:2])


def digest_for_alg(alg: str):
    """JWAUtil.getDigestAlgorithmForSigAlg."""
    if alg in ("RS256", "PS256", "ES256", "HS256", "ES256K"):
        return hashlib.sha256
    if alg in ("RS384", "PS384", "ES384", "HS384"):
        return hashlib.sha384
    if alg in ("RS512", "PS512", "ES512", "HS512", "EdDSA", "Ed25519"):
        return hashlib.sha512
    raise CondError(f"Invalid algorithm {alg}")


SUPPORTED_KTY = {"EC", "RSA", "oct", "OKP"}


SUPPORTED_EC_CURVES = {"P-256", "P-384", "P-521", "secp256k1"}


SUPPORTED_OKP_CURVES = {"Ed25519", "Ed448", "X25519", "X448"}


KNOWN_ALGS = {
    # JWSAlgorithm.Family.SIGNATURE
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES256K", "ES384", "ES512",
    "EdDSA", "Ed25519", "Ed448",
    # JWEAlgorithm.Family.ASYMMETRIC
    "RSA1_5", "RSA-OAEP", "RSA-OAEP-256", "RSA-OAEP-384", "RSA-OAEP-512", "ECDH-ES", "ECDH-ES+A128KW",
    "ECDH-ES+A192KW", "ECDH-ES+A256KW", "ECDH-1PU", "ECDH-1PU+A128KW", "ECDH-1PU+A192KW", "ECDH-1PU+A256KW",
    # JWEAlgorithm.Family.SYMMETRIC
    "A128KW", "A192KW", "A256KW", "A128GCMKW", "A192GCMKW", "A256GCMKW", "dir",
}


PRIVATE_KEY_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]


B64URL_RE = re.compile(r"^[A-Za-z0-9_-]*$")


def jwk_usable_issue(key: dict) -> Optional[str]:
    kty = key.get("kty")
    if not isinstance(kty, str):
        return None
    if kty not in SUPPORTED_KTY:
        return f"uses an unsupported key type (kty '{kty}')"
    crv = key.get("crv")
    if kty == "EC" and isinstance(crv, str) and crv and crv not in SUPPORTED_EC_CURVES:
        return f"uses an unsupported EC curve ('{crv}')"
    if kty == "OKP" and isinstance(crv, str) and crv and crv not in SUPPORTED_OKP_CURVES:
        return f"uses an unsupported OKP curve ('{crv}')"
    alg = key.get("alg")
    if isinstance(alg, str) and alg and alg not in KNOWN_ALGS:
        return f"uses an unrecognised algorithm (alg '{alg}')"
    return None


def jwk_parse(key: dict) -> Any:
    return jwt.PyJWK(key)
