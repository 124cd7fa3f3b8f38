"""Conditions on the id_token: PerformStandardIdTokenChecks and the claims it may carry."""

from __future__ import annotations

import json
import jwt
import re
import time
from jwt.api_jws import PyJWS
from typing import Any, Optional

from .core import CondError, TIME_SKEW, get_long, get_path, is_number, short
from .jose import jwk_parse, kty_for_alg
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Module


def ValidateIdToken(m: "Module") -> None:
    tok = m.id_token
    client_id = m.client.get("client_id")
    issuer = m.server.get("issuer")
    now = time.time()
    if not client_id or not issuer:
        raise CondError("Couldn't find values to test ID token against")
    c = tok["claims"]
    if "iss" not in c:
        raise CondError("'iss' claim missing")
    if c["iss"] != issuer:
        raise CondError(f"Issuer mismatch (expected {issuer}, actual {c['iss']})")
    if "aud" not in c:
        raise CondError("'aud' claim missing")
    aud = c["aud"]
    if isinstance(aud, list):
        if client_id not in aud:
            raise CondError(f"'aud' array does not contain our client id {client_id}: {aud}")
    elif aud != client_id:
        raise CondError(f"'aud' is not our client id (expected {client_id}, actual {aud})")
    exp = get_long(tok, "claims.exp")
    if exp is None:
        raise CondError("'exp' claim missing")
    if now - TIME_SKEW > exp:
        raise CondError(f"Token expired (exp {exp}, now {int(now)})")
    if exp > now + 50 * 365 * 86400:
        raise CondError("'exp' is unreasonably far in the future (more than 50 years)")
    iat = get_long(tok, "claims.iat")
    if iat is None:
        raise CondError("'iat' claim missing")
    if now + TIME_SKEW < iat:
        raise CondError(f"Token 'iat' in the future (iat {iat}, now {int(now)})")
    if now - TIME_SKEW > iat:
        raise CondError(f"Token 'iat' more than 5 minutes in the past (iat {iat}, now {int(now)})")
    auth_time = get_long(tok, "claims.auth_time")
    if auth_time is not None:
        if now - 365 * 86400 > auth_time:
            raise CondError("id_token auth_time is over a year in the past")
        if now + TIME_SKEW < auth_time:
            raise CondError("id_token auth_time is in the future")
    if c.get("acr") == "":
        raise CondError("id_token acr is an empty string")


ID_TOKEN_NON_IDENTITY_CLAIMS = ["iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "c_hash",
                                "at_hash", "s_hash", "jti", "nbf", "verified_claims"]


def _v_string(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != "" and v.lower() != "null"


def _v_birthdate(v: Any) -> bool:
    if not _v_string(v):
        return False
    this_year = time.gmtime().tm_year
    mm = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", v)
    if mm:
        y, mo, d = (int(x) for x in mm.groups())
        try:
            import datetime
            datetime.date(y if y else 2000, mo, d)
        except ValueError:
            return False
        return y == 0 or 1850 <= y <= this_year
    if re.fullmatch(r"[+-]?\d+", v):
        return 1850 <= int(v) <= this_year
    return False


def _v_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _v_number(v: Any) -> bool:
    return is_number(v)


def _v_object(v: Any) -> bool:
    return isinstance(v, dict)


ADDRESS_CLAIMS = {k: _v_string for k in ("formatted", "street_address", "locality", "region", "postal_code", "country")}


def _validate_object(obj: Any, validators: dict, context: Optional[str], problems: list[str], unknown: list[str]) -> bool:
    if not isinstance(obj, dict) or not obj:
        problems.append("Not a JSON object or no identity claims" + (f" ({context})" if context else ""))
        return False
    ok = True
    for k, v in obj.items():
        name = f"{context}.{k}" if context else k
        val = validators.get(k)
        if val is None:
            unknown.append(name)
            continue
        if isinstance(val, dict):
            if not _validate_object(v, val, name, problems, unknown):
                ok = False
        elif not val(v):
            problems.append(f"{name} is invalid: {short(v, 60)}")
            ok = False
    return ok


STANDARD_CLAIMS = {
    "sub": _v_string, "name": _v_string, "given_name": _v_string, "family_name": _v_string, "middle_name": _v_string,
    "nickname": _v_string, "preferred_username": _v_string, "profile": _v_string, "picture": _v_string,
    "website": _v_string, "email": _v_string, "email_verified": _v_bool, "gender": _v_string,
    "birthdate": _v_birthdate, "zoneinfo": _v_string, "locale": _v_string, "phone_number": _v_string,
    "phone_number_verified": _v_bool, "address": ADDRESS_CLAIMS, "updated_at": _v_number,
    "_claim_names": _v_object, "_claim_sources": _v_object, "txn": _v_string,
}


def ValidateIdTokenStandardClaims(m: "Module") -> None:
    claims = {k: v for k, v in m.id_token["claims"].items() if k not in ID_TOKEN_NON_IDENTITY_CLAIMS}
    problems: list[str] = []
    unknown: list[str] = []
    if not _validate_object(claims, STANDARD_CLAIMS, None, problems, unknown):
        raise CondError("id_token claims are not valid: " + "; ".join(problems))


def ValidateIdTokenNonce(m: "Module") -> None:
    incoming = m.id_token["claims"].get("nonce")
    expected = m.nonce
    if incoming is None and expected is None:
        return
    if expected is None:
        raise CondError(f"Nonce values mismatch: no nonce was sent but the id_token contains nonce '{incoming}'")
    if expected != incoming:
        raise CondError(f"Nonce values mismatch (expected '{expected}', actual {json.dumps(incoming)})")


def ValidateIdTokenACRClaimAgainstRequest(m: "Module") -> None:
    acr = m.id_token["claims"].get("acr")
    if acr is not None and not isinstance(acr, str):
        raise CondError("acr value in id_token must be a string")
    req = get_path(m.authorization_endpoint_request, "claims.id_token.acr")
    values = None
    if isinstance(req, dict):
        if isinstance(req.get("values"), list):
            values = req["values"]
        elif req.get("value") is not None:
            values = [req["value"]]
    if values is None:
        return
    if acr is None:
        raise CondError("One or more acr values were requested as an 'essential: true' claim, but the id_token has no acr")
    if acr not in values:
        raise CondError(f"acr value in id_token is not (one of the) requested values {values}: {acr}")


def ValidateIdTokenSignature(m: "Module") -> None:
    _verify_jws(m.id_token["value"], m.server_jwks, "id_token", kid_required=False)


def _verify_jws(token: str, jwks: dict, name: str, kid_required: bool) -> None:
    header = jwt.get_unverified_header(token)
    kid = header.get("kid")
    alg = header.get("alg")
    kty = kty_for_alg(alg)
    if kty is None:
        raise CondError(f"Error validating {name} signature: no key type for alg '{alg}'")
    keys = [k for k in (jwks.get("keys") or []) if isinstance(k, dict)]
    parsed = []
    for k in keys:
        try:
            parsed.append((k, jwk_parse(k)))
        except Exception:
            continue  # parseJWKSetLeniently skips keys the library cannot parse
    x5t = header.get("x5t#S256")

    def selectable(k: dict) -> bool:
        if k.get("kty") != kty:
            return False
        if k.get("alg") is not None and k.get("alg") != alg:
            return False
        if k.get("use") is not None and k.get("use") != "sig":
            return False
        if x5t is not None and k.get("x5t#S256") != x5t:
            return False
        return True

    def verify(pk: Any) -> bool:
        try:
            PyJWS().decode_complete(token, key=pk.key, algorithms=[alg])
            return True
        except jwt.InvalidSignatureError:
            return False
        except jwt.PyJWTError:
            return False

    strict = [k for k, _ in parsed if kid is not None and k.get("kid") == kid and k.get("alg") == alg
              and k.get("use") == "sig" and k.get("kty") == kty]
    if len(strict) > 1:
        raise CondError(f"Found more than one key in server JWKS that has the right kid, kty, alg and 'use':'sig' (kid {kid})")
    if kid:
        found = False
        for k, pk in parsed:
            if k.get("kid") != kid or not selectable(k):
                continue
            found = True
            if verify(pk):
                return
            raise CondError(f"Unable to verify {name} signature based on server key with the correct kid '{kid}'")
        if not found:
            raise CondError(f"server JWKS does not contain a key with the kid '{kid}' and kty '{kty}' that also matches (or does not have) alg/x5t#S256/'use':'sig'")
    else:
        if kid_required:
            raise CondError("kid value in JWT header is missing/null/empty")
        found = False
        for k, pk in parsed:
            if not selectable(k):
                continue
            found = True
            if verify(pk):
                return
        if not found:
            raise CondError(f"server JWKS does not contain a key with kty '{kty}' that also matches (or does not have) alg/x5t#S256/'use':'sig'")
        raise CondError(f"Unable to verify {name} signature based on server keys")


def CheckForSubjectInIdToken(m: "Module") -> None:
    sub = m.id_token["claims"].get("sub")
    if not isinstance(sub, str) or not sub:
        raise CondError("id_token does not contain 'sub'")
    if len(sub) > 255:
        raise CondError("id_token 'sub' exceeds 255 ASCII characters")
    for i, ch in enumerate(sub):
        if ord(ch) < 0x20:
            raise CondError(f"id_token 'sub' contains non-printable character at offset {i}")
        if ord(ch) >= 0x7F:
            raise CondError(f"id_token 'sub' contains non-ASCII character at offset {i}")


def _updated_at(obj: dict, location: str) -> None:
    v = obj.get("updated_at")
    if v is None:
        return
    if not is_number(v):
        raise CondError(f"updated_at in {location} is not a number: {json.dumps(v)}")
    if time.time() + TIME_SKEW < v:
        raise CondError(f"updated_at in {location} appears to be in the future")
    if v < 631152000:  # 1990-01-01
        raise CondError(f"updated_at in {location} appears to be prior to the year 1990")


def EnsureIdTokenUpdatedAtValid(m: "Module") -> None:
    # NB: the Java condition reads env "id_token" . "updated_at" (not "claims.updated_at"), so in
    # the suite it never sees the claim; ported literally on the parsed-token object.
    _updated_at(m.id_token, "id_token")


def EnsureIdTokenDoesNotContainName(m: "Module") -> None:
    if m.id_token["claims"].get("name") is not None:
        raise CondError("Unexpectedly found name in id_token; the 'name' claim was not requested to be returned in the id_token")


def EnsureIdTokenDoesNotContainEmailForScopeEmail(m: "Module") -> None:
    if m.id_token["claims"].get("email") is not None:
        raise CondError("Unexpectedly found email in id_token; scope=email asks for the email at the userinfo endpoint, not in the id_token")


SCOPE_STANDARD_CLAIMS = {
    "openid": ["sub"],
    "profile": ["name", "given_name", "family_name", "middle_name", "nickname", "profile", "picture", "website",
                "gender", "birthdate", "zoneinfo", "locale", "updated_at", "preferred_username"],
    "email": ["email", "email_verified"],
    "address": ["address"],
    "phone": ["phone_number", "phone_number_verified"],
    "offline_access": [],
}


ID_TOKEN_VALID_CLAIMS = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "at_hash",
                         "c_hash", "nbf", "jti", "sid", "s_hash", "openbanking_intent_id", "txn"]


def EnsureIdTokenDoesNotContainNonRequestedClaims(m: "Module") -> None:
    valid = list(ID_TOKEN_VALID_CLAIMS)
    scope = m.authorization_endpoint_request.get("scope") or ""
    scopes = scope.split(" ") if scope else []
    if "openid" in scopes:
        for s in scopes:
            for c in SCOPE_STANDARD_CLAIMS.get(s, []):
                if c not in valid:
                    valid.append(c)
    extra = [k for k in m.id_token["claims"] if k not in valid]
    if extra:
        raise CondError(f"id_token contains non-requested claims {extra} (requested scope '{scope}')")
