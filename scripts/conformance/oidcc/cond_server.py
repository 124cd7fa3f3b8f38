"""Conditions of the configure phase: discovery, JWKS, the client's auth method, scopes."""

from __future__ import annotations

import requests
import urllib.parse
from typing import Any, Callable, Optional

from .core import CondError, short
from .jose import B64URL_RE, PRIVATE_KEY_MEMBERS, SUPPORTED_KTY, jwk_parse, jwk_usable_issue
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Module


def GetDynamicServerConfiguration(m: "Module") -> None:
    url = m.ctx.discovery_url
    try:
        r = m.ctx.http.get(url)
    except requests.RequestException as e:
        raise CondError(f"Unable to fetch server configuration from {url} - {e}")
    m.discovery_endpoint_response = r
    if r.status >= 400:  # RestTemplate's default error handler throws on 4xx/5xx
        raise CondError(f"Unable to fetch server configuration from {url} - HTTP {r.status}")
    if not r.body:
        raise CondError("empty server configuration")
    if r.json_error or not isinstance(r.json, dict):
        raise CondError(f"server configuration is not a JSON object (HTTP {r.status}): {short(r.body)}")
    m.server = r.json


def EnsureDiscoveryEndpointResponseStatusCodeIs200(m: "Module") -> None:
    if m.discovery_endpoint_response.status != 200:
        raise CondError(f"discovery_endpoint_response returned an unexpected status code {m.discovery_endpoint_response.status}")


def content_type_mime(ct: Optional[str]) -> Optional[str]:
    if not ct:
        return None
    return ct.split(";")[0].strip()


def CheckDiscoveryEndpointReturnedJsonContentType(m: "Module") -> None:
    ct = m.discovery_endpoint_response.headers.get("content-type")
    if not ct:
        raise CondError("Couldn't find content-type header in discovery_endpoint_response")
    if content_type_mime(ct) != "application/json":
        raise CondError(f"Invalid content-type header in discovery_endpoint_response: expected application/json, actual {ct}")


def _url_ok(u: Any) -> bool:
    if not isinstance(u, str):
        return False
    p = urllib.parse.urlsplit(u)
    return bool(p.scheme) and bool(p.netloc)


def CheckServerConfiguration(m: "Module") -> None:
    for key in ("authorization_endpoint", "token_endpoint", "issuer"):
        v = m.server.get(key)
        if not isinstance(v, str) or not v:
            raise CondError(f"Couldn't find required component '{key}'")
        if not _url_ok(v):
            raise CondError(f"Couldn't parse key '{key}' as URL: {v}")


def ExtractTLSTestValuesFromServerConfiguration(m: "Module") -> None:
    for key in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "registration_endpoint"):
        v = m.server.get(key)
        if key == "token_endpoint" and not v:
            raise CondError("Token endpoint not found")
        if v and not _url_ok(v):
            raise CondError(f"URL not properly formed: {key}={v}")


def FetchServerKeys(m: "Module") -> None:
    uri = m.server.get("jwks_uri")
    if not isinstance(uri, str) or not uri:
        raise CondError("Didn't find jwks_uri in the server configuration")
    try:
        r = m.ctx.http.get(uri)
    except requests.RequestException as e:
        raise CondError(f"Fetching server keys from {uri} failed - {e}")
    if r.status >= 400:
        raise CondError(f"Fetching server keys from {uri} failed - HTTP {r.status}")
    if r.json_error or not isinstance(r.json, dict):
        raise CondError("Server JWKs set string is not JSON")
    m.server_jwks = r.json


def CheckServerKeysIsValid(m: "Module") -> None:
    keys = m.server_jwks.get("keys")
    if not isinstance(keys, list):
        raise CondError("Unable to parse JWK set: no 'keys' array")
    for k in keys:
        if isinstance(k, dict) and k.get("kty") in SUPPORTED_KTY:
            try:
                jwk_parse(k)
            except Exception as e:
                raise CondError(f"Unable to parse JWK set: {e}")


# ValidateJwksSequence("server_jwks", ...): four conditions
def EnsureJwksHasNoPrivateOrSymmetricKeyMaterial(m: "Module") -> None:
    for i, k in enumerate(m.server_jwks.get("keys") or []):
        if not isinstance(k, dict):
            continue
        if k.get("kty") == "oct":
            raise CondError(f"The JWK set in server JWKS contains private or symmetric key material; the key at index {i} is a symmetric (oct) key")
        for member in PRIVATE_KEY_MEMBERS:
            if member in k:
                raise CondError(f"The JWK set in server JWKS contains private key material; the key at index {i} contains member '{member}'")


def ValidateJwksStructure(m: "Module") -> None:
    keys = m.server_jwks.get("keys")
    if not isinstance(keys, list):
        raise CondError("The JWK set in server JWKS does not contain a 'keys' array")
    for i, k in enumerate(keys):
        if not isinstance(k, dict):
            raise CondError(f"The key at index {i} is not a JSON object")
        kty = k.get("kty")
        if not isinstance(kty, str):
            raise CondError(f"The key at index {i} is missing the required 'kty' member")
        if kty == "RSA":
            req, b64 = ["e", "n"], ["e", "n"]
        elif kty == "EC":
            req, b64 = ["x", "y"], ["x", "y"]
        elif kty == "OKP":
            req, b64 = ["x", "crv"], ["x"]
        else:
            continue
        for r_ in req:
            if r_ not in k:
                raise CondError(f"The key at index {i} is missing the required '{r_}' member for a {kty} key")
        for b in b64:
            if not isinstance(k.get(b), str) or not B64URL_RE.match(k[b]):
                raise CondError(f"The key at index {i} has a '{b}' value that is not valid unpadded base64url")


def ParseUsableJwksKeys(m: "Module") -> None:
    for i, k in enumerate(m.server_jwks.get("keys") or []):
        if not isinstance(k, dict) or jwk_usable_issue(k):
            continue
        try:
            jwk_parse(k)
        except Exception as e:
            raise CondError(f"The key at index {i} cannot be parsed by the JOSE library ({e})")


def WarnOnUnusableJwksKeys(m: "Module") -> None:
    issues = []
    for i, k in enumerate(m.server_jwks.get("keys") or []):
        if isinstance(k, dict):
            issue = jwk_usable_issue(k)
            if issue:
                issues.append(f"key {i} {issue}")
    if issues:
        raise CondError("The JWK set in server JWKS contains key(s) the test suite cannot use: " + "; ".join(issues))


def CheckForKeyIdInServerJWKs(m: "Module") -> None:
    keys = m.server_jwks.get("keys")
    if keys is None:
        raise CondError("keys entry not found in JWKs")
    if not isinstance(keys, list):
        raise CondError("keys entry in JWKs is not an array")
    for k in keys:
        if not isinstance(k, dict):
            raise CondError("invalid key in JWKs, not a JSON object")
        if not isinstance(k.get("kid"), str) or not k["kid"].strip():
            raise CondError(f"kid not found in key {short(k, 80)}")


def CheckDistinctKeyIdValueInServerJWKs(m: "Module") -> None:
    keys = m.server_jwks.get("keys")
    if not isinstance(keys, list):
        raise CondError("keys entry in JWKs is not an array")
    seen = set()
    for k in keys:
        if not isinstance(k, dict):
            raise CondError("invalid key in JWKs, not a JSON object")
        kid = k.get("kid")
        if kid is not None:
            if kid in seen:
                raise CondError(f"'kid' value {kid} is used more than once in server_jwks")
            seen.add(kid)


def _array_validate(m: "Module", name: str, values: list[str], minimum: int, msg: Optional[str],
                    equal: Callable[[str, str], bool] = lambda a, b: a == b) -> None:
    """AbstractValidateJsonArray.validate"""
    sv = m.server.get(name)
    if sv is None:
        raise CondError(f"{name}: not found")
    if not isinstance(sv, list):
        raise CondError(f"'{name}' should be an array")
    found = 0
    for want in values:
        for have in sv:
            if isinstance(have, str) and equal(want, have):
                found += 1
                break
    if found < minimum:
        raise CondError(f"{msg} (expected {values}, actual {sv})")


def EnsureServerConfigurationSupportsClientSecretBasic(m: "Module") -> None:
    if m.server.get("token_endpoint_auth_methods_supported") is None:
        return  # default is client_secret_basic
    _array_validate(m, "token_endpoint_auth_methods_supported", ["client_secret_basic"], 1,
                    "server discovery document contains token_endpoint_auth_methods_supported which does not contain client_secret_basic")


def EnsureServerConfigurationSupportsClientSecretPost(m: "Module") -> None:
    _array_validate(m, "token_endpoint_auth_methods_supported", ["client_secret_post"], 1,
                    "server discovery document does not contain client_secret_post in token_endpoint_auth_methods_supported")


def SetProtectedResourceUrlToUserInfoEndpoint(m: "Module") -> None:
    u = m.server.get("userinfo_endpoint")
    if not isinstance(u, str) or not u:
        raise CondError("userinfo_endpoint missing from server configuration (mandatory for certification)")
    m.protected_resource_url = u


def OIDCCCheckScopesSupportedContainScopeTest(m: "Module") -> None:
    ss = m.server.get("scopes_supported")
    expected = m.client["scope"].split(" ")
    if ss is None:
        m.scopes_not_supported = True
        raise CondError("'scopes_support' is missing from discovery document")
    if not isinstance(ss, list):
        m.scopes_not_supported = True
        raise CondError("'scopes_support' in discovery document is not a array")
    missing = [s for s in expected if s not in ss]
    if missing:
        m.scopes_not_supported = True
        raise CondError(f"'scopes_supported' in discovery document doesn't contain expected scopes {missing} (actual {ss})")


def CheckDiscEndpointRequestParameterSupported(m: "Module") -> None:
    _bool_validate(m, "request_parameter_supported", default=False, required=True)


def CheckDiscEndpointRequestUriParameterSupported(m: "Module") -> None:
    _bool_validate(m, "request_uri_parameter_supported", default=True, required=True)


def CheckDiscEndpointClaimsParameterSupported(m: "Module") -> None:
    _bool_validate(m, "claims_parameter_supported", default=False, required=True)


def _bool_validate(m: "Module", name: str, default: bool, required: bool) -> None:
    v = m.server.get(name)
    if v is None:
        if default != required:
            raise CondError(f"'{name}' should be '{str(required).lower()}', but is absent and the default value is '{str(default).lower()}'.")
        return
    if not isinstance(v, bool):
        raise CondError(f"{name}: incorrect type, must be a boolean.")
    if v != required:
        raise CondError(f"{name} must be: {str(required).lower()}")
