"""id_token conditions of particular modules: at_hash / c_hash, kid, acr, auth_time, sub."""

from __future__ import annotations

import time

from .core import CondError, TIME_SKEW, b64url, get_string
from .jose import digest_for_alg
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Module


def ExtractAtHash(m: "Module") -> None:
    _extract_hash(m, "at_hash")


def ExtractCHash(m: "Module") -> None:
    _extract_hash(m, "c_hash")


def _extract_hash(m: "Module", name: str) -> None:
    setattr(m, name, None)
    h = get_string(m.id_token, "claims." + name)
    if h is None:
        raise CondError(f"Couldn't find {name} in ID token")
    alg = m.id_token["header"].get("alg")
    if alg is None:
        raise CondError("Couldn't find algorithm in ID token header")
    setattr(m, name, {name: h, "alg": alg})


def _validate_hash(m: "Module", name: str, base: str) -> None:
    data = getattr(m, name)
    digest = digest_for_alg(data["alg"])(base.encode("ascii")).digest()
    expected = b64url(digest[: len(digest) // 2])
    if data[name] != expected:
        raise CondError(f"Invalid {name} in token (expected {expected}, actual {data[name]})")


def ValidateAtHash(m: "Module") -> None:
    _validate_hash(m, "at_hash", m.access_token["value"])


def ValidateCHash(m: "Module") -> None:
    code = m.authorization_endpoint_response.get("code")
    if code is None:
        raise CondError("Could not find authorization_endpoint_response.code")
    _validate_hash(m, "c_hash", code)


def EnsureIdTokenContainsKid(m: "Module") -> None:
    if not m.id_token["header"].get("kid"):
        raise CondError("kid was not found in the ID token header")


def EnsureIdTokenSignatureIsRS256(m: "Module") -> None:
    alg = m.id_token["header"].get("alg")
    if not alg:
        raise CondError("alg not present in ID token header")
    if alg != "RS256":
        raise CondError(f"ID token signature algorithm is not \"RS256\": {alg}")


def ValidateIdTokenACRClaimAgainstAcrValuesRequest(m: "Module") -> None:
    acr = m.id_token["claims"].get("acr")
    requested = m.authorization_endpoint_request.get("acr_values")
    if requested is None:
        raise CondError("authorization endpoint request did not contain acr_values")
    if acr is None:
        raise CondError(f"An acr value was requested using acr_values ('{requested}'), so the server 'SHOULD' return an acr claim, but it did not.")
    if not isinstance(acr, str):
        raise CondError("acr value in id_token must be a string")
    if acr not in requested.split(" "):
        raise CondError(f"acr value in id_token '{acr}' is not (one of the) requested values '{requested}'")


def CheckIdTokenAuthTimeClaimPresentDueToMaxAge(m: "Module") -> None:
    if "auth_time" not in m.id_token["claims"]:
        raise CondError("auth_time claim is missing from the id_token, but it is required for a authentication where the max_age parameter was used")


def CheckSecondIdTokenAuthTimeIsLaterIfPresent(m: "Module") -> None:
    a = m.first_id_token["claims"].get("auth_time")
    b = m.id_token["claims"].get("auth_time")
    if a is None or b is None:
        return
    if a == b:
        raise CondError(f"the id_token from the second authorization has the same auth_time ({a}) as the id_token from the first authorization; the server was required to reauthenticate the user")
    if a > b:
        raise CondError("The id_token from the second authorization has an earlier auth_time than the id_token from the first authorization")


def CheckIdTokenAuthTimeIsRecentIfPresent(m: "Module") -> None:
    at = m.id_token["claims"].get("auth_time")
    if at is None:
        return
    if time.time() - TIME_SKEW - 1 > at:
        raise CondError(f"id_token auth_time ({at}) is older than 1 second (allowing 5 minutes skew)")


def CheckIdTokenAuthTimeClaimsSameIfPresent(m: "Module") -> None:
    a = m.first_id_token["claims"].get("auth_time")
    b = m.id_token["claims"].get("auth_time")
    if a is None or b is None:
        return
    if a != b:
        raise CondError(f"The id_tokens contain different auth_time claims ({a} vs {b}), but must contain the same auth_time.")


def CheckIdTokenSubConsistentForSecondAuthorization(m: "Module") -> None:
    if m.first_id_token["claims"].get("sub") != m.id_token["claims"].get("sub"):
        raise CondError("The id_token from the first and second authorization contain different sub claims, but must contain the same sub.")
