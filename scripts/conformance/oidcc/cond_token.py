"""Conditions on the token endpoint: the call, status, tokens, errors, refresh tokens."""

from __future__ import annotations

import json
import re
import requests

from .core import CondError, is_number, is_str, shannon_entropy_bits, short
from .jose import parse_jwt
from .cond_server import content_type_mime
from .cond_authorization import ERROR_RE, _crlftab, _error_description, _error_uri
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Module


def CallTokenEndpointAndReturnFullResponse(m: "Module") -> None:
    try:
        r = m.ctx.http.post(m.server["token_endpoint"], data=m.token_endpoint_request_form_parameters,
                            headers={**m.token_endpoint_request_headers, "Accept": "application/json"})
    except requests.RequestException as e:
        raise CondError(f"Call to token endpoint failed - {e}")
    m.token_endpoint_response_full = r
    m.token_endpoint_response_http_status = r.status
    m.token_endpoint_response_headers = r.headers
    m.token_endpoint_response = r.json if isinstance(r.json, dict) else None
    if not r.body:
        raise CondError(f"Missing or empty response from the token endpoint (HTTP {r.status})")
    if r.json_error:
        raise CondError(f"Error parsing token endpoint response body as JSON (HTTP {r.status}): {short(r.body)}")
    if not isinstance(r.json, (dict, list)):
        raise CondError(f"token endpoint did not return a JSON object: {short(r.body)}")


def CheckTokenEndpointHttpStatus200(m: "Module") -> None:
    s = m.token_endpoint_response_http_status
    if s != 200:
        raise CondError(f"Invalid http status {s} (expected 200): {short(m.token_endpoint_response_full.body)}")


def CheckTokenEndpointHttpStatus400(m: "Module") -> None:
    s = m.token_endpoint_response_http_status
    if s != 400:
        raise CondError(f"Invalid http status {s} (expected 400)")


def CheckTokenEndpointReturnedJsonContentType(m: "Module") -> None:
    ct = m.token_endpoint_response_headers.get("content-type")
    if not ct:
        raise CondError("Couldn't find content-type header in token_endpoint_response_headers")
    if content_type_mime(ct) != "application/json":
        raise CondError(f"Invalid content-type header in token_endpoint_response_headers: {ct}")


def CheckTokenEndpointCacheHeaders(m: "Module") -> None:
    cc = m.token_endpoint_response_headers.get("cache-control")
    if cc is None:
        raise CondError("token endpoint response does not contain 'cache-control' header")
    if "no-store" not in [p.strip() for p in cc.split(",")]:
        raise CondError(f"'cache-control' header in token endpoint response does not contain no-store: {cc}")


def CheckIfTokenEndpointResponseError(m: "Module") -> None:
    if m.token_endpoint_response is None:
        raise CondError("Couldn't find token endpoint response")
    if m.token_endpoint_response.get("error"):
        raise CondError("The token endpoint call was expected to succeed, but it returned an error response: " + short(m.token_endpoint_response))


def CheckForAccessTokenValue(m: "Module") -> None:
    t = m.token_endpoint_response
    if not t.get("access_token"):
        raise CondError("access_token is missing or empty in token endpoint response")
    if not t.get("token_type"):
        raise CondError("token_type is missing or empty in token endpoint response")


def ExtractAccessTokenFromTokenResponse(m: "Module") -> None:
    t = m.token_endpoint_response
    if not is_str(t.get("access_token")) or not t["access_token"]:
        raise CondError("Couldn't find access token in token_endpoint_response")
    if not is_str(t.get("token_type")) or not t["token_type"]:
        raise CondError("Couldn't find token type in token_endpoint_response")
    m.access_token = {"value": t["access_token"], "type": t["token_type"]}


def ExtractExpiresInFromTokenEndpointResponse(m: "Module") -> None:
    if "expires_in" not in m.token_endpoint_response:
        m.expires_in = None
        raise CondError("'expires_in' not present in the token endpoint response. RFC6749 recommends expires_in is included.")
    m.expires_in = {"expires_in": m.token_endpoint_response["expires_in"]}


def ValidateExpiresIn(m: "Module") -> None:
    v = m.expires_in["expires_in"]
    if isinstance(v, (dict, list)) or v is None:
        raise CondError("expires_in is not a JSON primitive")
    if not is_number(v):
        raise CondError(f"expires_in is not a number: {json.dumps(v)}")
    if int(v) <= 0:
        raise CondError("expires_in must be positive")
    if int(v) > 31536000:
        raise CondError(f"expires_in is unreasonably large (more than 1 year): {v}")


def CheckForRefreshTokenValue(m: "Module") -> None:
    if not m.token_endpoint_response.get("refresh_token"):
        raise CondError("Couldn't find refresh token")


def ExtractIdTokenFromTokenResponse(m: "Module") -> None:
    v = m.token_endpoint_response.get("id_token") if m.token_endpoint_response else None
    m.id_token = None
    if v is None or not isinstance(v, str):
        raise CondError("Couldn't find id_token in token_endpoint_response")
    m.id_token = parse_jwt(v)


def ExtractRefreshTokenFromTokenResponse(m: "Module") -> None:
    rt = m.token_endpoint_response.get("refresh_token") if m.token_endpoint_response else None
    if rt is None:
        raise CondError("Token endpoint response does not contain a refresh token")
    m.refresh_token = rt


def CheckErrorFromTokenEndpointResponseErrorInvalidGrant(m: "Module") -> None:
    if m.token_endpoint_response is None:
        raise CondError("Couldn't find token_endpoint_response")
    err = m.token_endpoint_response.get("error")
    if not err:
        raise CondError("Couldn't find error field")
    if err != "invalid_grant":
        raise CondError(f"'error' field has unexpected value '{err}' (expected invalid_grant)")


def ValidateErrorFromTokenEndpointResponseError(m: "Module") -> None:
    err = (m.token_endpoint_response or {}).get("error")
    if not err:
        raise CondError("The authorization server was expected to return an error, but the 'error' field in the response is either null or empty")
    if not isinstance(err, str) or not ERROR_RE.fullmatch(err):
        raise CondError(f"'error' field MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E: {err!r}")


def CheckErrorDescriptionFromTokenEndpointResponseErrorContainsCRLFTAB(m: "Module") -> None:
    _crlftab(m.token_endpoint_response or {}, "token_endpoint_response")


def ValidateErrorDescriptionFromTokenEndpointResponseError(m: "Module") -> None:
    _error_description(m.token_endpoint_response or {})


def ValidateErrorUriFromTokenEndpointResponseError(m: "Module") -> None:
    _error_uri(m.token_endpoint_response or {})


def ServerAllowedReusingAuthorizationCode(m: "Module") -> None:
    raise CondError("Server has incorrectly allowed a second use of an authorization code; an authorization code is expected to be single use.")


def EnsureServerConfigurationDoesNotSupportRefreshToken(m: "Module") -> None:
    g = m.server.get("grant_types_supported")
    if g is None:
        return
    if not isinstance(g, list):
        raise CondError("supported_grant_types is present in the discovery document but is not an array")
    if "refresh_token" in g:
        raise CondError("The server supports refresh tokens, but did not issue one. This is acceptable if the server has a policy of issuing refresh tokens to some clients, but not to openid clients.")


def EnsureServerConfigurationSupportsRefreshToken(m: "Module") -> None:
    g = m.server.get("grant_types_supported")
    if g is None:
        raise CondError("The server issued a refresh token but does not claim to support this grant type (grant_types_supported in not present in the discovery document)")
    if not isinstance(g, list):
        raise CondError("supported_grant_types is present in the discovery document but is not an array")
    if "refresh_token" not in g:
        raise CondError("The server issued a refresh token but does not claim to support this grant type")


VSCHAR_RE = re.compile(r"[\x20-\x7E]+")


def EnsureRefreshTokenContainsAllowedCharactersOnly(m: "Module") -> None:
    rt = m.token_endpoint_response.get("refresh_token")
    if rt is None:
        return
    if not isinstance(rt, str) or not VSCHAR_RE.fullmatch(rt):
        raise CondError("Refresh token contains illegal characters (only %x20-%x7E allowed)")


def EnsureAccessTokenContainsAllowedCharactersOnly(m: "Module") -> None:
    at = m.token_endpoint_response.get("access_token")
    if at is None:
        raise CondError("Token endpoint response does not contain an access_token")
    if not isinstance(at, str) or not VSCHAR_RE.fullmatch(at):
        raise CondError("Access token contains illegal characters (only %x20-%x7E allowed)")


def CheckTokenTypeIsBearer(m: "Module") -> None:
    tt = m.token_endpoint_response.get("token_type")
    if not tt:
        raise CondError("Couldn't find token type")
    if str(tt).lower() != "bearer":
        raise CondError(f"Token type is not bearer: {tt}")


def EnsureMinimumAccessTokenEntropy(m: "Module") -> None:
    at = m.token_endpoint_response.get("access_token")
    if not at:
        raise CondError("Can't find access token")
    e = shannon_entropy_bits(at)
    if not e > 96:
        raise CondError(f"access token entropy {e:.1f} bits does not meet 96")


def EnsureAccessTokenValuesAreDifferent(m: "Module") -> None:
    a = (m.first_access_token or {}).get("value")
    b = (m.second_access_token or {}).get("value")
    if a is None:
        raise CondError("first_access_token is null")
    if b is None:
        raise CondError("second_access_token is null")
    if a == b:
        raise CondError("Access token values are not different")


def EnsureMinimumRefreshTokenLength(m: "Module") -> None:
    rt = m.token_endpoint_response.get("refresh_token")
    if not rt:
        raise CondError("Can't find refresh token")
    bits = len(rt.encode()) * 8
    if bits < 128:
        raise CondError(f"Refresh token is not of sufficient length (required 128 bits, actual {bits})")


def EnsureMinimumRefreshTokenEntropy(m: "Module") -> None:
    rt = m.token_endpoint_response.get("refresh_token")
    if not rt:
        raise CondError("Can't find refresh token")
    e = shannon_entropy_bits(rt)
    if not e > 96:
        raise CondError(f"refresh token entropy {e:.1f} bits does not meet 96")


def CompareIdTokenClaims(m: "Module") -> None:
    a = m.first_id_token["claims"]
    b = m.second_id_token["claims"]
    for name in ("iss", "sub"):
        if name not in a:
            raise CondError(f"Initial id token does not contain a {name} claim")
        if name not in b:
            raise CondError(f"Second id token does not contain a {name} claim")
        if a[name] != b[name]:
            raise CondError(f"Claim values are not the same: {name} {a[name]!r} vs {b[name]!r}")
    if "iat" not in a:
        raise CondError("Initial id token does not contain an iat claim")
    if "iat" not in b:
        raise CondError("Second id token does not contain an iat claim")
    if a["iat"] == b["iat"]:
        raise CondError("iat for the second id token MUST represent the time that the new ID Token is issued, cannot be the same as the initial id token")
    if "aud" not in a:
        raise CondError("Initial id token does not contain an aud claim")
    if "aud" not in b:
        raise CondError("Second id token does not contain an aud claim")
    if isinstance(a["aud"], list):
        if not isinstance(b["aud"], list) or set(a["aud"]) != set(b["aud"]):
            raise CondError("aud Claim Value MUST be the same as in the ID Token issued when the original authentication occurred")
    elif a["aud"] != b["aud"]:
        raise CondError("aud Claim Value MUST be the same as in the ID Token issued when the original authentication occurred")
    if "auth_time" in b and a.get("auth_time") != b["auth_time"]:
        raise CondError(f"auth_time claims are not the same ({a.get('auth_time')} vs {b['auth_time']})")
    if "azp" not in a and "azp" in b:
        raise CondError("Second id token cannot contain an azp claim because the initial id token does not have an azp claim")
    if ("azp" in a or "azp" in b) and a.get("azp") != b.get("azp"):
        raise CondError("azp claims are not the same")
