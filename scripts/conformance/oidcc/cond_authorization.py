"""Conditions on the authorization response: callback parameters, state, code, errors."""

from __future__ import annotations

import re
import urllib.parse

from .core import CondError, shannon_entropy_bits, short, single_value_query
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Module


def CheckMatchingCallbackParameters(m: "Module") -> None:
    expected = single_value_query(m.redirect_uri)
    for k, v in expected.items():
        if m.callback_query_params.get(k) != v:
            raise CondError(f"redirect_uri query parameter '{k}' (expected '{v}') is not present in the redirect back")


def ValidateIssIfPresentInAuthorizationResponse(m: "Module") -> None:
    iss = m.authorization_endpoint_response.get("iss")
    if iss is None:
        return
    if iss != m.server.get("issuer"):
        raise CondError(f"'iss' parameter in authorization response does not match server's issuer value (expected {m.server.get('issuer')}, actual {iss})")


def CheckIfAuthorizationEndpointError(m: "Module") -> None:
    if m.authorization_endpoint_response.get("error"):
        raise CondError("The authorization was expected to succeed, but the server returned an error from the authorization endpoint: "
                        + short(m.authorization_endpoint_response))


def CheckStateInAuthorizationResponse(m: "Module") -> None:
    actual = m.authorization_endpoint_response.get("state")
    expected = m.state
    if not expected:
        if actual:
            raise CondError("No state value was sent, but a state in response was returned")
        return
    err = m.authorization_endpoint_response.get("error")
    if expected == actual:
        return
    if not actual and err in ("invalid_request_object", "invalid_request_uri"):
        return
    if not actual:
        raise CondError(f"State was passed in request, but is missing from response (or returned in the wrong place); expected '{expected}'")
    raise CondError(f"State in response did not match (expected '{expected}', actual '{actual}')")


def ExtractAuthorizationCodeFromAuthorizationResponse(m: "Module") -> None:
    code = m.authorization_endpoint_response.get("code")
    if not code:
        raise CondError("Couldn't find authorization code in authorization_endpoint_response, 'code' parameter is missing/empty")
    m.code = code


def EnsureMinimumAuthorizationCodeLength(m: "Module") -> None:
    code = m.authorization_endpoint_response.get("code")
    if not code:
        raise CondError("Can't find authorization code")
    bits = len(code.encode()) * 8
    if bits < 128:
        raise CondError(f"Authorization code is not long enough (required 128 bits, actual {bits})")


def EnsureMinimumAuthorizationCodeEntropy(m: "Module") -> None:
    code = m.authorization_endpoint_response.get("code")
    if not code:
        raise CondError("Can't find authorization code")
    e = shannon_entropy_bits(code)
    if not e > 96:
        raise CondError(f"Calculated shannon entropy {e:.1f} does not seem to meet minimum required entropy 96")


def EnsureErrorFromAuthorizationEndpointResponse(m: "Module") -> None:
    if "error" not in m.authorization_endpoint_response:
        raise CondError("Authorization server was expected to return an error but did not: " + short(m.authorization_endpoint_response))


def RejectAuthCodeInAuthorizationEndpointResponse(m: "Module") -> None:
    if m.callback_query_params.get("code") is not None:
        raise CondError("Authorization code is present in URL query but an error was expected")
    if m.callback_fragment_params.get("code") is not None:
        raise CondError("Authorization code is present in URL fragment but an error was expected")


def CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint(m: "Module") -> None:
    allowed = {"error", "error_description", "error_uri", "state", "session_state", "iss"}
    resp = m.authorization_endpoint_response
    if "error" not in resp:
        raise CondError("Authorization server was expected to return an error but did not")
    extra = {k: v for k, v in resp.items() if k not in allowed}
    if extra:
        raise CondError(f"error response includes unexpected parameters: {short(extra)}")


def _crlftab(resp: dict, where: str) -> None:
    d = resp.get("error_description")
    if d and any(c in d for c in "\r\n\t"):
        raise CondError(f"'error_description' field in {where} includes characters CR, LF or TAB, these are not recommended")


ERROR_DESCRIPTION_RE = re.compile(r"[\x09\x0A\x0D\x20-\x21\x23-\x5B\x5D-\x7E]+")


ERROR_URI_RE = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")


ERROR_RE = re.compile(r"[\x20-\x21\x23-\x5B\x5D-\x7E]+")


def _error_description(resp: dict) -> None:
    d = resp.get("error_description")
    if d and not ERROR_DESCRIPTION_RE.fullmatch(d):
        raise CondError(f"'error_description' field MUST NOT include characters outside the set %09-0A / %x0D / %x20-21 / %x23-5B / %x5D-7E: {d!r}")


def _error_uri(resp: dict) -> None:
    u = resp.get("error_uri")
    if not u:
        return
    p = urllib.parse.urlsplit(u)
    if not p.scheme or not p.netloc:
        raise CondError(f"'error_uri' field MUST conform to the URI-reference syntax: {u!r}")
    if not ERROR_URI_RE.fullmatch(u):
        raise CondError(f"'error_uri' field MUST NOT include characters outside the set %x21 / %x23-5B / %x5D-7E: {u!r}")


def CheckErrorDescriptionFromAuthorizationEndpointResponseErrorContainsCRLFTAB(m: "Module") -> None:
    _crlftab(m.authorization_endpoint_response, "authorization_endpoint_response")


def ValidateErrorDescriptionFromAuthorizationEndpointResponseError(m: "Module") -> None:
    _error_description(m.authorization_endpoint_response)


def ValidateErrorUriFromAuthorizationEndpointResponseError(m: "Module") -> None:
    _error_uri(m.authorization_endpoint_response)


def CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType(m: "Module") -> None:
    err = m.authorization_endpoint_response.get("error")
    if not err:
        raise CondError("Expected 'error' field not found")
    if err not in ("unsupported_response_type", "invalid_request"):
        raise CondError(f"'error' field has unexpected value '{err}' (expected unsupported_response_type or invalid_request)")


def CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface(m: "Module") -> None:
    err = m.authorization_endpoint_response.get("error")
    allowed = ["interaction_required", "login_required", "account_selection_required", "consent_required"]
    if not err:
        raise CondError("Expected 'error' field not found")
    if err not in allowed:
        raise CondError(f"'error' field has an unexpected value '{err}' (permitted: {allowed})")
