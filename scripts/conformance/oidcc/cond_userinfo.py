"""Conditions on the protected resource and the userinfo endpoint."""

from __future__ import annotations

import json
import requests
from typing import Any

from .core import CondError, short
from .cond_server import content_type_mime
from .cond_id_token import SCOPE_STANDARD_CLAIMS, STANDARD_CLAIMS, _updated_at, _validate_object
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .browser import HttpResult
    from .module import Module


def _bearer_header(m: "Module") -> dict:
    at = m.access_token or {}
    if not at.get("value"):
        raise CondError("Access token not found")
    tt = at.get("type")
    if not tt:
        raise CondError("Token type not found")
    if tt.lower() not in ("bearer", "dpop"):
        raise CondError(f"Access token is neither a bearer nor a dpop token: {tt}")
    return {"Authorization": f"{tt} {at['value']}"}


def _call_resource(m: "Module", url: str, method: str, headers: dict, body: Any) -> HttpResult:
    headers = dict(headers)
    headers.setdefault("Accept", "application/json")
    if method == "POST":
        headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
    try:
        if method == "POST":
            return m.ctx.http.post(url, data=body if body is not None else "", headers=headers)
        return m.ctx.http.get(url, headers=headers)
    except requests.RequestException as e:
        raise CondError(f"Call to protected resource {url} failed - {e}")


def CallProtectedResource(m: "Module") -> None:
    m.resource_endpoint_response_full = _call_resource(m, m.protected_resource_url, m.resource_method, _bearer_header(m), None)


def CallUserInfoEndpoint(m: "Module") -> None:
    url = m.server.get("userinfo_endpoint")
    if not url:
        raise CondError("\"userinfo_endpoint\" missing from server configuration")
    m.userinfo_endpoint_response_full = _call_resource(m, url, m.resource_method, _bearer_header(m), None)


def CallUserInfoEndpointWithBearerTokenInBody(m: "Module") -> None:
    url = m.server.get("userinfo_endpoint")
    if not url:
        raise CondError("\"userinfo_endpoint\" missing from server configuration")
    at = m.access_token or {}
    if not at.get("value"):
        raise CondError("Access token not found")
    if (at.get("type") or "").lower() != "bearer":
        raise CondError(f"Access token is not a bearer token: {at.get('type')}")
    m.userinfo_endpoint_response_full = _call_resource(m, url, "POST", {}, {"access_token": at["value"]})


def EnsureHttpStatusCodeIs200(m: "Module", response: HttpResult, endpoint: str) -> None:
    if response.status != 200:
        raise CondError(f"{endpoint} endpoint returned an unexpected http status {response.status} (expected 200): {short(response.body, 100)}")


def EnsureHttpStatusCodeIs4xx(m: "Module", response: HttpResult, endpoint: str) -> None:
    if not 400 <= response.status <= 499:
        raise CondError(f"{endpoint} endpoint returned http status {response.status}, expected 400 to 499")


def EnsureContentTypeJson(m: "Module", response: HttpResult) -> None:
    ct = response.headers.get("content-type")
    if not ct:
        raise CondError("Couldn't find content-type header in endpoint_response")
    if content_type_mime(ct) != "application/json":
        raise CondError(f"Invalid content-type header in endpoint_response: expected application/json, actual {ct}")


def ExtractUserInfoFromUserInfoEndpointResponse(m: "Module") -> None:
    m.userinfo = None
    r = m.userinfo_endpoint_response_full
    try:
        v = json.loads(r.body)
    except ValueError:
        raise CondError(f"UserInfo endpoint response is not JSON: {short(r.body)}")
    if not isinstance(v, dict):
        raise CondError("UserInfo endpoint response is not a JSON object")
    m.userinfo = v


def UserInfoEndpointWithAccessTokenInBodyNotSupported(m: "Module") -> None:
    raise CondError(f"The server returned a non-2xx HTTP response ({m.userinfo_endpoint_response_full.status}), and hence does not appear to support access tokens passed in the POST body.")


def ValidateUserInfoStandardClaims(m: "Module") -> None:
    problems: list[str] = []
    unknown: list[str] = []
    if not _validate_object(m.userinfo, STANDARD_CLAIMS, None, problems, unknown):
        raise CondError("Userinfo is not valid: " + "; ".join(problems))


def EnsureUserInfoContainsSub(m: "Module") -> None:
    if not m.userinfo.get("sub"):
        raise CondError("sub not found in userinfo")


def EnsureUserInfoUpdatedAtValid(m: "Module") -> None:
    _updated_at(m.userinfo, "userinfo")


def EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources(m: "Module") -> None:
    names = m.userinfo.get("_claim_names")
    sources = m.userinfo.get("_claim_sources")
    if names is None and sources is None:
        return
    if names is None:
        raise CondError("userinfo response contains '_claim_sources' but not _claim_names'")
    if sources is None:
        raise CondError("userinfo response contains '_claim_names' but not _claim_sources'")
    referenced = set(v for v in names.values()) if isinstance(names, dict) else set()
    for k in (sources.keys() if isinstance(sources, dict) else []):
        if k not in referenced:
            raise CondError(f"Member name '{k}' in userinfo response '_claim_sources' is not referenced by member values in '_claim_names'")


def VerifyUserInfoAndIdTokenInTokenEndpointSameSub(m: "Module") -> None:
    su = m.userinfo.get("sub")
    si = (m.token_endpoint_id_token or {}).get("claims", {}).get("sub")
    if not su:
        raise CondError("\"sub\" not found in UserInfo response")
    if not si:
        raise CondError("\"sub\" not found in token_endpoint_id_token")
    if su != si:
        raise CondError(f"\"sub\" in user info response ({su}) doesn't match with \"sub\" in token_endpoint_id_token ({si})")


def VerifyScopesReturnedInUserInfoClaims(m: "Module") -> None:
    scope = m.authorization_endpoint_request.get("scope")
    if not scope:
        raise CondError("'scope' not found in authorization endpoint request")
    expected: list[str] = []
    for s in scope.split(" "):
        expected += SCOPE_STANDARD_CLAIMS.get(s, [])
    missing = sorted(set(expected) - set(m.userinfo.keys()))
    if missing:
        raise CondError(f"userinfo doesn't contain all the standard claims of the requested scope '{scope}': missing {missing}")


def EnsureUserInfoDoesNotContainName(m: "Module") -> None:
    if m.userinfo.get("name") is not None:
        raise CondError("Unexpectedly found name in userinfo response; the 'name' claim was not requested")


def EnsureUserInfoContainsName(m: "Module") -> None:
    if not m.userinfo.get("name"):
        raise CondError("name not found in userinfo")
