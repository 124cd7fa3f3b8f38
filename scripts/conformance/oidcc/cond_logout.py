"""Conditions of the Back-Channel OP plan (OIDCCBackchannelRpInitiatedLogoutTestPlan): discovery
metadata for logout, the end-session request, the back-channel logout request and its logout token,
the post-logout redirect."""

from __future__ import annotations

import json
import secrets
import string
import time
from typing import Any

from .core import CondError, build_url, get_long, get_string, short
from .cond_discovery import _https
from .cond_id_token import _verify_jws
from .cond_server import _bool_validate
from .jose import parse_jwt
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Module


BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"


# --- discovery (OIDCCBackchannelLogoutDiscoveryEndpointVerification) --------------------------------
def CheckDiscEndpointBackchannelLogoutSupported(m: "Module") -> None:
    _bool_validate(m, "backchannel_logout_supported", default=False, required=True)


def CheckDiscEndpointBackchannelLogoutSessionSupported(m: "Module") -> None:
    _bool_validate(m, "backchannel_logout_session_supported", default=False, required=True)


def CheckDiscEndSessionEndpoint(m: "Module") -> None:
    _https(m, "end_session_endpoint")


# --- the relying party's URIs -------------------------------------------------------------------------
def _base_url(m: "Module") -> str:
    base = m.ctx.rp.base_url if m.ctx.rp is not None else ""
    if not base:
        raise CondError("Base URL is empty (the port hosts the relying party's endpoints at --rp-listen)")
    return base


def CreateBackchannelLogoutUri(m: "Module") -> None:
    m.backchannel_logout_uri = _base_url(m) + "/backchannel_logout"


def CreatePostLogoutRedirectUri(m: "Module") -> None:
    m.post_logout_redirect_uri = _base_url(m) + "/post_logout_redirect"


# --- the end-session request (AbstractOIDCCRpInitiatedLogout) ----------------------------------------
def _vschar_punctuation() -> str:
    ranges = [(" ", "/"), (":", "@"), ("[", "`"), ("{", "~")]
    return "".join(chr(c) for a, b in ranges for c in range(ord(a), ord(b) + 1))


def CreateRandomEndSessionState(m: "Module") -> None:
    """RFC6749AppendixASyntaxUtils.generateVSChar(50, 10, 30): 50 letters, 10 digits, 30 punctuation
    characters of %x20-7E; then '+', ' ' and ';' become '~' (the suite's URL encoding quirks)."""
    punct = _vschar_punctuation()
    state = ("".join(secrets.choice(string.ascii_letters) for _ in range(50))
             + "".join(secrets.choice(string.digits) for _ in range(10))
             + "".join(secrets.choice(punct) for _ in range(30)))
    m.end_session_state = state.replace("+", "~").replace(" ", "~").replace(";", "~")


def CreateEndSessionEndpointRequest(m: "Module") -> None:
    id_token = (m.id_token or {}).get("value")
    if not id_token:
        raise CondError("Couldn't find id_token")
    if not m.post_logout_redirect_uri:
        raise CondError("Couldn't find post_logout_redirect_uri")
    m.end_session_endpoint_request = {"id_token_hint": id_token, "post_logout_redirect_uri": m.post_logout_redirect_uri,
                                      "state": m.end_session_state}


def BuildRedirectToEndSessionEndpoint(m: "Module") -> None:
    endpoint = m.server.get("end_session_endpoint")
    if not isinstance(endpoint, str) or not endpoint:
        raise CondError("Couldn't find end_session endpoint")
    m.redirect_to_end_session_endpoint = build_url(endpoint, list(m.end_session_endpoint_request.items()))


# --- the back-channel logout request (OIDCCBackChannelRpInitiatedLogout.validateLogoutResults) --------
def _tls_protocol(m: "Module") -> str:
    tls = m.backchannel_logout_request.tls
    if not tls or not tls.get("protocol"):
        raise CondError("TLS protocol not found: the back-channel logout request did not arrive over TLS "
                        f"(the relying party's endpoint is {m.backchannel_logout_uri})")
    return tls["protocol"]


BCP195_TLS12_CIPHERS = ["DHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
                        "DHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384"]


def EnsureIncomingTls12WithSecureCipherOrTls13(m: "Module") -> None:
    protocol = _tls_protocol(m)
    if protocol == "TLSv1.2":
        cipher = m.backchannel_logout_request.tls.get("cipher")
        if cipher not in BCP195_TLS12_CIPHERS:
            raise CondError(f"TLS 1.2 in use and cipher is not one recommended by BCP195 (expected one of "
                            f"{BCP195_TLS12_CIPHERS}, actual {cipher})")
    elif protocol != "TLSv1.3":
        raise CondError(f"TLS version is neither 1.2 nor 1.3 (actual {protocol})")


def EnsureIncomingTls13(m: "Module") -> None:
    protocol = _tls_protocol(m)
    if protocol != "TLSv1.3":
        raise CondError(f"Client doesn't support TLS 1.3 (actual {protocol})")


def ExtractLogoutTokenFromBackchannelLogoutRequest(m: "Module") -> None:
    m.logout_token = None
    form = m.backchannel_logout_request.body_form_params
    token = form.get("logout_token") if isinstance(form, dict) else None
    if not isinstance(token, str):
        ctype = m.backchannel_logout_request.headers.get("content-type", "no content-type")
        raise CondError(f"Couldn't find body_form_params.logout_token in backchannel_logout_request "
                        f"({ctype}: {short(m.backchannel_logout_request.body or '(empty body)')})")
    try:
        m.logout_token = parse_jwt(token)
    except CondError as e:
        raise CondError(f"Couldn't parse logout_token from backchannel_logout_request as a JWT: {e}")


def CheckForUnexpectedParametersInBackchannelLogoutRequest(m: "Module") -> None:
    unexpected = {k: v for k, v in m.backchannel_logout_request.body_form_params.items() if k != "logout_token"}
    if unexpected:
        raise CondError("backchannel_logout_request includes unexpected parameters. This may indicate the server has "
                        "misunderstood the spec, or it may be using extensions the test suite is unaware of: "
                        + short(unexpected))


def ValidateLogoutTokenSignature(m: "Module") -> None:
    _verify_jws(m.logout_token["value"], m.server_jwks, "logout_token", kid_required=False)


def ValidateLogoutTokenClaims(m: "Module") -> None:
    """In the order of OIDCBCL-2.4: iss, aud, iat (not in the future, not older than a day), jti,
    events. exp, sub, sid and nonce are not checked here (the suite checks sub, sid and nonce apart)."""
    client_id = m.client.get("client_id")
    issuer = m.server.get("issuer")
    if not client_id or not issuer:
        raise CondError("Couldn't find values to test token against")
    claims = m.logout_token["claims"]
    iss = get_string(claims, "iss")
    if iss is None:
        raise CondError("'iss' claim missing")
    if iss != issuer:
        raise CondError(f"Issuer mismatch (expected {issuer}, actual {iss})")
    aud = claims.get("aud")
    if aud is None:
        raise CondError("'aud' claim missing")
    if isinstance(aud, list):
        if client_id not in aud:
            raise CondError(f"'aud' array does not contain our client id (expected {client_id}, actual {json.dumps(aud)})")
    elif not isinstance(aud, str):
        raise CondError(f"'aud' is not a string: {json.dumps(aud)}")
    elif aud != client_id:
        raise CondError(f"'aud' is not our client id (expected {client_id}, actual {aud})")
    iat = get_long(claims, "iat")
    now = time.time()
    if iat is None:
        raise CondError("'iat' claim missing")
    if now + 5 * 60 < iat:
        raise CondError(f"Token 'iat' in the future (iat {iat}, now {int(now)})")
    if now - 24 * 3600 > iat:
        raise CondError(f"'iat' is more than 1 day in the past (iat {iat}, now {int(now)})")
    if get_string(claims, "jti") is None:
        raise CondError("jti missing")
    events = claims.get("events")
    if events is None:
        raise CondError("'events' claim missing")
    if not isinstance(events, dict):
        raise CondError("'events' claim is not a json object")
    if len(events) != 1:
        raise CondError(f"'events' object does not contain exactly 1 entry: {json.dumps(events)}")
    if BACKCHANNEL_LOGOUT_EVENT not in events:
        raise CondError(f"{BACKCHANNEL_LOGOUT_EVENT} entry is missing from 'events' claim: {json.dumps(events)}")
    if not isinstance(events[BACKCHANNEL_LOGOUT_EVENT], dict):
        raise CondError(f"{BACKCHANNEL_LOGOUT_EVENT} is not a json object")
    if events[BACKCHANNEL_LOGOUT_EVENT]:
        raise CondError(f"{BACKCHANNEL_LOGOUT_EVENT} is not an empty object: {json.dumps(events)}")


def _same_claim(m: "Module", name: str) -> None:
    in_id_token: Any = get_string(m.id_token["claims"], name)
    in_logout_token = get_string(m.logout_token["claims"], name)
    if in_id_token != in_logout_token:
        raise CondError(f"The id_token and the logout_token contain different {name} claims, but must contain the same "
                        f"{name} (id_token: {json.dumps(in_id_token)}, logout_token: {json.dumps(in_logout_token)})")


def CheckIdTokenSubMatchesLogoutToken(m: "Module") -> None:
    _same_claim(m, "sub")


def CheckIdTokenSidMatchesLogoutToken(m: "Module") -> None:
    _same_claim(m, "sid")


def CheckLogoutTokenNoNonce(m: "Module") -> None:
    if "nonce" in m.logout_token["claims"]:
        raise CondError("Logout token has a nonce, which it must not.")


def CheckLogoutTokenHasSubOrSid(m: "Module") -> None:
    c = m.logout_token["claims"]
    if "sub" not in c and "sid" not in c:
        raise CondError("logout token has neither sub nor sid - it must have at least one of them.")


# --- the post-logout redirect ---------------------------------------------------------------------------
def CheckPostLogoutState(m: "Module") -> None:
    state = m.post_logout_redirect["query_string_params"].get("state")
    if state is None:
        raise CondError("state not present in query params passed to post logout redirect uri.")
    if state != m.end_session_state:
        raise CondError("state in query params passed to post logout redirect uri does not match state passed in the "
                        f"end_session request (actual {state!r}, expected {m.end_session_state!r})")


def CheckForUnexpectedParametersInPostLogoutRedirect(m: "Module") -> None:
    params = m.post_logout_redirect["query_string_params"]
    unexpected = {k: v for k, v in params.items() if k != "state"}
    if unexpected:
        raise CondError("post_logout_redirect includes unexpected parameters in url query. This may indicate the server "
                        "has misunderstood the spec, or it may be using extensions the test suite is unaware of: "
                        + short(unexpected))
