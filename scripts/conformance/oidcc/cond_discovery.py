"""Conditions of the Config OP module (OIDCCDiscoveryEndpointVerification)."""

from __future__ import annotations

import re
import urllib.parse

from .core import CondError, DISCOVERY_PATH
from .cond_server import _array_validate
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Module


def OIDCCCheckDiscEndpointResponseTypesSupported(m: "Module") -> None:
    _array_validate(m, "response_types_supported",
                    ["code", "code id_token", "id_token", "token id_token", "code id_token token", "code token"], 1,
                    "The server must support at least one of the response types defined in OpenID Connect.",
                    equal=lambda a, b: set(a.split(" ")) == set(b.split(" ")))


def CheckDiscEndpointDiscoveryUrl(m: "Module") -> None:
    url = m.ctx.discovery_url
    p = urllib.parse.urlsplit(url)
    if not p.scheme or not p.netloc:
        raise CondError(f"Invalid URL. Unable to parse: {url}")
    if not p.path.endswith(DISCOVERY_PATH):
        raise CondError(f"discoveryUrl is missing '{DISCOVERY_PATH}': {url}")
    if p.scheme != "https":
        raise CondError(f"Expected https protocol for server.discoveryUrl, actual '{p.scheme}' ({url})")


def CheckDiscEndpointIssuer(m: "Module") -> None:
    iss = m.server.get("issuer")
    if iss is None or isinstance(iss, dict):
        raise CondError("issuer is missing from discovery endpoint document")
    expected = m.ctx.discovery_url
    suffix = ".well-known/openid-configuration"
    if expected.endswith(suffix):
        expected = expected[: -len(suffix)]
    strip = lambda u: u[:-1] if u.endswith("/") else u  # noqa: E731
    if strip(str(iss)) != strip(expected):
        raise CondError(f"issuer listed in the discovery document ({iss}) is not consistent with the location the discovery document was retrieved from ({expected})")


def CheckDiscEndpointIssuerIsValidUrl(m: "Module") -> None:
    iss = m.server.get("issuer")
    if not isinstance(iss, str):
        raise CondError("issuer is missing or not a string in the authorization server metadata")
    issues = []
    p = urllib.parse.urlsplit(iss)
    if p.scheme.lower() != "https":
        issues.append(f"issuer '{iss}' must use the https scheme")
    if not p.hostname:
        issues.append(f"issuer '{iss}' is missing a host component")
    if "#" in iss:
        issues.append(f"issuer '{iss}' must not contain a fragment part")
    if "?" in iss:
        issues.append(f"issuer '{iss}' must not contain a query part")
    if "@" in p.netloc:
        issues.append(f"issuer '{iss}' must not contain userinfo")
    if issues:
        raise CondError("issuer is not a valid RFC 8414 issuer identifier URL: " + "; ".join(issues))


# json-schemas/rfc8414/oauth_authorization_server_metadata.json (conformance suite): property -> type
_S, _A, _B, _U, _O, _ANY = "string", "array", "boolean", "uri", "object", "any"


SERVER_METADATA_SCHEMA = {
    "issuer": _U, "authorization_endpoint": _U, "token_endpoint": _U, "jwks_uri": _U, "registration_endpoint": _U,
    "scopes_supported": _A, "response_types_supported": _A, "response_modes_supported": _A,
    "grant_types_supported": _A, "token_endpoint_auth_methods_supported": _A,
    "token_endpoint_auth_signing_alg_values_supported": _A, "service_documentation": _U,
    "ui_locales_supported": _A, "op_policy_uri": _U, "op_tos_uri": _U, "revocation_endpoint": _U,
    "revocation_endpoint_auth_methods_supported": _A, "revocation_endpoint_auth_signing_alg_values_supported": _A,
    "global_token_revocation_endpoint": _U, "global_token_revocation_endpoint_auth_methods_supported": _A,
    "introspection_endpoint": _U, "introspection_endpoint_auth_methods_supported": _A,
    "introspection_endpoint_auth_signing_alg_values_supported": _A, "code_challenge_methods_supported": _A,
    "userinfo_endpoint": _U, "end_session_endpoint": _U, "check_session_iframe": _U,
    "subject_types_supported": _A, "id_token_signing_alg_values_supported": _A,
    "id_token_encryption_alg_values_supported": _A, "id_token_encryption_enc_values_supported": _A,
    "userinfo_signing_alg_values_supported": _A, "userinfo_encryption_alg_values_supported": _A,
    "userinfo_encryption_enc_values_supported": _A, "request_object_signing_alg_values_supported": _A,
    "request_object_encryption_alg_values_supported": _A, "request_object_encryption_enc_values_supported": _A,
    "display_values_supported": _A, "claim_types_supported": _A, "claims_supported": _A,
    "claims_locales_supported": _A, "claims_parameter_supported": _B, "request_parameter_supported": _B,
    "request_uri_parameter_supported": _B, "require_request_uri_registration": _B, "acr_values_supported": _A,
    "frontchannel_logout_supported": _B, "frontchannel_logout_session_supported": _B,
    "backchannel_logout_supported": _B, "backchannel_logout_session_supported": _B,
    "dpop_signing_alg_values_supported": _A, "pushed_authorization_request_endpoint": _U,
    "require_pushed_authorization_requests": _B, "authorization_details_types_supported": _A,
    "authorization_challenge_endpoint": _U, "backchannel_authentication_endpoint": _U,
    "backchannel_token_delivery_modes_supported": _A,
    "backchannel_authentication_request_signing_alg_values_supported": _A,
    "backchannel_user_code_parameter_supported": _B, "authorization_signing_alg_values_supported": _A,
    "authorization_encryption_alg_values_supported": _A, "authorization_encryption_enc_values_supported": _A,
    "client_attestation_signing_alg_values_supported": _A, "client_attestation_pop_signing_alg_values_supported": _A,
    "challenge_endpoint": _U, "mtls_endpoint_aliases": _O, "tls_client_certificate_bound_access_tokens": _B,
    "signed_metadata": _S, "pre-authorized_grant_anonymous_access_supported": _B,
    "authorization_response_iss_parameter_supported": _B, "device_authorization_endpoint": _U,
    "require_signed_request_object": _B, "introspection_signing_alg_values_supported": _A,
    "introspection_encryption_alg_values_supported": _A, "introspection_encryption_enc_values_supported": _A,
    "prompt_values_supported": _A, "signed_jwks_uri": _U, "jwks": _O, "organization_name": _S,
    "organization_uri": _U, "display_name": _S, "description": _S, "keywords": _A, "contacts": _A, "logo_uri": _U,
    "information_uri": _U, "federation_registration_endpoint": _U, "client_registration_types_supported": _A,
    "client_id_metadata_document_supported": _B, "trust_frameworks_supported": _A, "evidence_supported": _A,
    "documents_supported": _A, "documents_check_methods_supported": _A, "documents_methods_supported": _A,
    "electronic_records_supported": _A, "attachments_supported": _A, "claims_in_verified_claims_supported": _A,
    "transformed_claims_functions_supported": _A, "transformed_claims_predefined": _ANY,
    "grant_management_endpoint": _U, "grant_management_actions_supported": _A,
    "grant_management_action_required": _B, "request_authentication_methods_supported": _ANY,
    "request_authentication_signing_alg_values_supported": _A, "protected_resources": _A,
    "status_list_aggregation_endpoint": _U,
}


def ValidateServerMetadataAgainstSchema(m: "Module") -> None:
    errors = []
    for k, v in m.server.items():
        t = SERVER_METADATA_SCHEMA.get(k)
        if t is None or t == _ANY:
            continue  # unknown properties are CheckForUnexpectedParametersInServerMetadata's business
        if t == _U:
            if not isinstance(v, str) or not urllib.parse.urlsplit(v).scheme:
                errors.append(f"{k}: expected a string in URI format")
        elif t == _S and not isinstance(v, str):
            errors.append(f"{k}: expected a string")
        elif t == _B and not isinstance(v, bool):
            errors.append(f"{k}: expected a boolean")
        elif t == _O and not isinstance(v, dict):
            errors.append(f"{k}: expected an object")
        elif t == _A and (not isinstance(v, list) or not all(isinstance(i, str) for i in v)):
            errors.append(f"{k}: expected an array of strings")
    if errors:
        raise CondError("Found invalid entries in OAuth Authorization Server metadata input: " + "; ".join(errors))


def CheckForUnexpectedParametersInServerMetadata(m: "Module") -> None:
    unknown = [k for k in m.server if k not in SERVER_METADATA_SCHEMA]
    if unknown:
        raise CondError(f"Unknown properties were found in the OAuth Authorization Server metadata: {unknown}")


def CheckDiscEndpointSubjectTypesSupported(m: "Module") -> None:
    _array_validate(m, "subject_types_supported", ["public", "pairwise"], 1,
                    "subject_types_supported is required to contain at least one of public or pairwise")


def OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported(m: "Module") -> None:
    _array_validate(m, "id_token_signing_alg_values_supported", ["RS256"], 1,
                    "RS256 support is required, but the server does not list it in id_token_signing_alg_values_supported")


def OIDCCCheckDiscEndpointUserinfoSigningAlgValuesSupported(m: "Module") -> None:
    _array_validate(m, "userinfo_signing_alg_values_supported", [], 0, None)


def _https(m: "Module", key: str) -> None:
    """AbstractJsonUriIsValidAndHttps.validate"""
    v = m.server.get(key)
    if v is None:
        raise CondError(f"{key}: URL not found")
    if not isinstance(v, str):
        raise CondError(f"{key} is expected to be a string containing a URL")
    p = urllib.parse.urlsplit(v)
    if not p.scheme or not p.netloc:
        raise CondError(f"{key} is not a valid URL: {v}")
    if p.scheme != "https":
        raise CondError(f"{key} must use the https scheme (actual '{p.scheme}': {v})")


def CheckDiscEndpointAuthorizationEndpoint(m: "Module") -> None:
    _https(m, "authorization_endpoint")


def CheckDiscEndpointTokenEndpoint(m: "Module") -> None:
    _https(m, "token_endpoint")


def CheckDiscEndpointUserinfoEndpoint(m: "Module") -> None:
    _https(m, "userinfo_endpoint")


def CheckDiscEndpointRegistrationEndpoint(m: "Module") -> None:
    _https(m, "registration_endpoint")


def CheckJwksUri(m: "Module") -> None:
    _https(m, "jwks_uri")


def CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256(m: "Module") -> None:
    _array_validate(m, "request_object_signing_alg_values_supported", ["RS256"], 1,
                    "The server does not support RS256 for request objects; this is a 'should' in OpenID Connect Discovery")


def OIDCCCheckDiscEndpointClaimsSupported(m: "Module") -> None:
    _array_validate(m, "claims_supported", [], 0, None)


def OIDCCCheckDiscEndpointGrantTypesSupported(m: "Module") -> None:
    g = m.server.get("grant_types_supported")
    if g is None:
        return
    if not isinstance(g, list):
        raise CondError("grant_types_supported in discovery document, if present, must be an array.")
    if not g:
        raise CondError("grant_types_supported in discovery document must not be an empty array.")


def CheckDiscEndpointScopesSupportedContainsOpenId(m: "Module") -> None:
    _array_validate(m, "scopes_supported", ["openid"], 1, "scopes_supported in the server's discovery document does not contain 'openid'.")


def CheckDiscEndpointScopesSupportedSyntax(m: "Module") -> None:
    ss = m.server.get("scopes_supported")
    if ss is None:
        return
    if not isinstance(ss, list):
        raise CondError("scopes_supported is not a JSON array")
    issues = []
    for i, s in enumerate(ss):
        if not isinstance(s, str):
            issues.append(f"scopes_supported[{i}]: expected string")
        elif not s or not all(c == "\x21" or "\x23" <= c <= "\x5b" or "\x5d" <= c <= "\x7e" for c in s):
            issues.append(f"scopes_supported[{i}]: '{s}' is not an RFC 6749 scope-token")
    if issues:
        raise CondError("Invalid scope syntax in authorization server scopes_supported: " + "; ".join(issues))


# RFC 5646 langtag (well-formedness only; the suite also checks subtags against the IANA registry)
BCP47_RE = re.compile(
    r"^(?:(?P<lang>[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4}|[A-Za-z]{5,8})"
    r"(?:-(?P<script>[A-Za-z]{4}))?(?:-(?P<region>[A-Za-z]{2}|\d{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|\d[A-Za-z0-9]{3}))*(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*"
    r"(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?|[Xx](?:-[A-Za-z0-9]{1,8})+)$")


def CheckDiscEndpointLocalesSyntax(m: "Module") -> None:
    issues = []
    for name in ("ui_locales_supported", "claims_locales_supported"):
        vals = m.server.get(name)
        if vals is None:
            continue
        if not isinstance(vals, list):
            issues.append(f"{name}: expected JSON array")
            continue
        for i, v in enumerate(vals):
            if not isinstance(v, str) or not BCP47_RE.match(v):
                issues.append(f"{name}[{i}]: '{v}' is not a well-formed BCP47 tag")
    if issues:
        raise CondError("Invalid BCP47 language tag(s) in authorization server metadata: " + "; ".join(issues))


def CheckDiscEndpointLocalesCanonicalCasing(m: "Module") -> None:
    issues = []
    for name in ("ui_locales_supported", "claims_locales_supported"):
        vals = m.server.get(name)
        if not isinstance(vals, list):
            continue
        for i, v in enumerate(vals):
            if not isinstance(v, str):
                continue
            mm = BCP47_RE.match(v)
            if not mm or not mm.group("lang"):
                continue
            canon = v.lower()
            parts = canon.split("-")
            out = [parts[0]]
            for p in parts[1:]:
                if len(p) == 4 and p.isalpha() and len(out) <= 2:
                    out.append(p.title())
                elif (len(p) == 2 and p.isalpha()) and len(out) <= 3:
                    out.append(p.upper())
                else:
                    out.append(p)
            canon = "-".join(out)
            if canon != v:
                issues.append(f"{name}[{i}]: '{v}' should be '{canon}'")
    if issues:
        raise CondError("Authorization server locale tags deviate from BCP47 canonical casing: " + "; ".join(issues))


def CheckDiscEndpointAllEndpointsAreHttps(m: "Module") -> None:
    bad = []
    for k in m.server:
        if k.endswith("_endpoint"):
            try:
                _https(m, k)
            except CondError as e:
                bad.append(str(e))
                break  # the Java condition throws at the first endpoint that fails
    if bad:
        raise CondError(bad[0])


def EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray(m: "Module") -> None:
    v = m.server.get("code_challenge_methods_supported")
    if v is None or (isinstance(v, list) and not v):
        return
    _array_validate(m, "code_challenge_methods_supported", ["S256", "plain"], 1, "No matching value from server")
