"""Basic OP modules: the happy flow, userinfo, scopes and request parameters that must not cause an error."""

from __future__ import annotations

import hashlib
import secrets
import string
import urllib.parse
from typing import Optional

from .core import FAILURE, INFO, WARNING, b64url, build_url
from .cond_server import OIDCCCheckScopesSupportedContainScopeTest
from .cond_authorization import CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType, EnsureMinimumAuthorizationCodeEntropy, EnsureMinimumAuthorizationCodeLength
from .cond_token import ExtractExpiresInFromTokenEndpointResponse
from .cond_id_token import EnsureIdTokenDoesNotContainEmailForScopeEmail, EnsureIdTokenDoesNotContainName, EnsureIdTokenDoesNotContainNonRequestedClaims
from .cond_id_token_extra import EnsureIdTokenContainsKid, EnsureIdTokenSignatureIsRS256, ExtractAtHash, ExtractCHash, ValidateAtHash, ValidateCHash, ValidateIdTokenACRClaimAgainstAcrValuesRequest
from .cond_userinfo import CallUserInfoEndpoint, CallUserInfoEndpointWithBearerTokenInBody, EnsureContentTypeJson, EnsureHttpStatusCodeIs200, EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources, EnsureUserInfoContainsSub, EnsureUserInfoDoesNotContainName, EnsureUserInfoUpdatedAtValid, ExtractUserInfoFromUserInfoEndpointResponse, UserInfoEndpointWithAccessTokenInBodyNotSupported, ValidateUserInfoStandardClaims, VerifyScopesReturnedInUserInfoClaims, VerifyUserInfoAndIdTokenInTokenEndpointSameSub
from .server_test import AbstractOIDCCServerTest, ExpectingPlaceholderOrCallback


class OIDCCServerTest(AbstractOIDCCServerTest):
    name = "oidcc-server"

    def perform_id_token_validation(self) -> None:
        super().perform_id_token_validation()
        self.cont(WARNING, EnsureIdTokenDoesNotContainName)

    def additional_token_endpoint_response_validation(self) -> None:
        super().additional_token_endpoint_response_validation()
        self.cont(WARNING, ExtractExpiresInFromTokenEndpointResponse)
        self.cont(INFO, ExtractAtHash)
        if self.at_hash is not None:
            self.cont(FAILURE, ValidateAtHash)
        self.cont(INFO, ExtractCHash)
        if self.c_hash is not None:
            self.cont(FAILURE, ValidateCHash)

    def perform_authorization_code_validation(self) -> None:
        self.cont(FAILURE, EnsureMinimumAuthorizationCodeLength)
        self.cont(FAILURE, EnsureMinimumAuthorizationCodeEntropy)

    def on_post_authorization_flow_complete(self) -> None:
        self.cont(WARNING, EnsureIdTokenDoesNotContainNonRequestedClaims)


class OIDCCIdTokenSignature(AbstractOIDCCServerTest):
    """oidcc-idtoken-signature.  Not applicable to a static client in the suite (it registers a client
    without id_token_signed_response_alg); run only with --include-not-applicable, with the static client."""
    name = "oidcc-idtoken-signature"

    def perform_id_token_validation(self) -> None:
        self.cont(FAILURE, EnsureIdTokenContainsKid)
        self.cont(FAILURE, EnsureIdTokenSignatureIsRS256)
        super().perform_id_token_validation()


class OIDCCServerTestClientSecretPost(AbstractOIDCCServerTest):
    name = "oidcc-server-client-secret-post"
    client_auth = "client_secret_post"

    def static_client(self) -> dict:
        return dict(self.ctx.post_client)  # config "client_secret_post" copied into "client"


class OIDCCResponseTypeMissing(ExpectingPlaceholderOrCallback):
    name = "oidcc-response-type-missing"
    skip_response_type = True
    placeholder = "ExpectResponseTypeMissingErrorPage"

    def process_callback(self) -> None:
        self.authorization_endpoint_response = self.callback_query_params
        self.perform_generic_authorization_endpoint_error_response_validation()
        self.cont(FAILURE, CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType)


class AbstractOIDCCUserInfoTest(AbstractOIDCCServerTest):
    def on_post_authorization_flow_complete(self) -> None:
        self.call_user_info_endpoint()
        self.extract_user_info_response()
        self.validate_extracted_user_info_response()

    def call_user_info_endpoint(self) -> None:
        self.call_user_info_endpoint_get()

    def extract_user_info_response(self) -> None:
        self.cont(FAILURE, EnsureContentTypeJson, self.userinfo_endpoint_response_full)
        self.stop(ExtractUserInfoFromUserInfoEndpointResponse)

    def validate_extracted_user_info_response(self) -> None:
        self.cont(FAILURE, ValidateUserInfoStandardClaims)
        self.cont(FAILURE, EnsureUserInfoContainsSub)
        self.cont(FAILURE, EnsureUserInfoUpdatedAtValid)
        self.cont(FAILURE, EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources)


class OIDCCUserInfoGet(AbstractOIDCCUserInfoTest):
    name = "oidcc-userinfo-get"


class OIDCCUserInfoPostHeader(AbstractOIDCCUserInfoTest):
    name = "oidcc-userinfo-post-header"

    def call_user_info_endpoint(self) -> None:
        self.resource_method = "POST"  # SetResourceMethodToPost
        self.stop(CallUserInfoEndpoint)
        self.cont(FAILURE, EnsureHttpStatusCodeIs200, self.userinfo_endpoint_response_full, "userinfo")


class OIDCCUserInfoPostBody(AbstractOIDCCUserInfoTest):
    name = "oidcc-userinfo-post-body"

    def on_post_authorization_flow_complete(self) -> None:
        self.stop(CallUserInfoEndpointWithBearerTokenInBody)
        if not 200 <= self.userinfo_endpoint_response_full.status <= 299:
            self.cont(WARNING, UserInfoEndpointWithAccessTokenInBodyNotSupported)
        else:
            self.extract_user_info_response()
            self.validate_extracted_user_info_response()


class OIDCCEnsureRequestWithoutNonceSucceedsForCodeFlow(AbstractOIDCCServerTest):
    name = "oidcc-ensure-request-without-nonce-succeeds-for-code-flow"
    skip_nonce = True

    def perform_post_authorization_flow(self) -> None:
        self.on_post_authorization_flow_complete()  # no token request


class AbstractOIDCCReturnedClaimsServerTest(AbstractOIDCCServerTest):
    scope_for_test: Optional[str] = None

    def skip_test_if_scopes_not_supported(self) -> None:
        if self.scope_for_test:
            self.client["scope"] = self.scope_for_test  # SetScopeInClientConfigurationToOpenIdX
        self.cont(INFO, OIDCCCheckScopesSupportedContainScopeTest)
        if self.scopes_not_supported:
            self.skip("scopes_supported from the discovery endpoint indicates the server doesn't support the scopes required for this test ("
                      + self.client["scope"] + ")")

    def on_post_authorization_flow_complete(self) -> None:
        self.call_user_info_endpoint_get()
        self.stop(ExtractUserInfoFromUserInfoEndpointResponse)
        self.validate_user_info_response()

    def validate_user_info_response(self) -> None:
        self.cont(FAILURE, ValidateUserInfoStandardClaims)
        self.cont(FAILURE, EnsureUserInfoContainsSub)
        self.cont(FAILURE, EnsureUserInfoUpdatedAtValid)
        self.cont(FAILURE, EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources)
        self.cont(FAILURE, VerifyUserInfoAndIdTokenInTokenEndpointSameSub)
        self.cont(WARNING, VerifyScopesReturnedInUserInfoClaims)


class OIDCCScopeProfile(AbstractOIDCCReturnedClaimsServerTest):
    name = "oidcc-scope-profile"
    scope_for_test = "openid profile"


class OIDCCScopeEmail(AbstractOIDCCReturnedClaimsServerTest):
    name = "oidcc-scope-email"
    scope_for_test = "openid email"

    def perform_id_token_validation(self) -> None:
        super().perform_id_token_validation()
        self.cont(WARNING, EnsureIdTokenDoesNotContainName)
        self.cont(WARNING, EnsureIdTokenDoesNotContainEmailForScopeEmail)

    def validate_user_info_response(self) -> None:
        super().validate_user_info_response()
        self.cont(WARNING, EnsureUserInfoDoesNotContainName)


class OIDCCScopeAddress(AbstractOIDCCReturnedClaimsServerTest):
    name = "oidcc-scope-address"
    scope_for_test = "openid address"


class OIDCCScopePhone(AbstractOIDCCReturnedClaimsServerTest):
    name = "oidcc-scope-phone"
    scope_for_test = "openid phone"


class OIDCCScopeAll(AbstractOIDCCReturnedClaimsServerTest):
    name = "oidcc-scope-all"
    scope_for_test = "openid email phone address profile"


class OIDCCAlternateHappyFlow(OIDCCScopeEmail):
    name = "oidcc-alternate-happy-flow"

    def create_authorization_request_sequence(self) -> dict:
        req = super().create_authorization_request_sequence()
        # ReverseScopeOrderInAuthorizationEndpointRequest
        scope = req.get("scope") or ""
        if not scope:
            self.fail("ReverseScopeOrderInAuthorizationEndpointRequest", "no scope found")
        scopes = scope.split(" ")
        if len(scopes) < 2:
            self.fail("ReverseScopeOrderInAuthorizationEndpointRequest", "'scope' must contain more than one scope")
        req["scope"] = " ".join(reversed(scopes))
        return req

    def create_authorization_redirect(self) -> None:
        """BuildPlainRedirectToAuthorizationEndpointReorderedParams: reverse sorted order."""
        keys = sorted(self.authorization_endpoint_request, reverse=True)
        self.redirect_to_authorization_endpoint = build_url(
            self.server["authorization_endpoint"], [(k, self.param_value(self.authorization_endpoint_request[k])) for k in keys])


class _ExtraParams(AbstractOIDCCServerTest):
    extra: dict = {}

    def create_authorization_request_sequence(self) -> dict:
        req = super().create_authorization_request_sequence()
        req.update(self.extra_params())
        return req

    def extra_params(self) -> dict:
        return dict(self.extra)


class OIDCCDisplayPage(_ExtraParams):
    name = "oidcc-display-page"
    extra = {"display": "page"}


class OIDCCDisplayPopup(_ExtraParams):
    name = "oidcc-display-popup"
    extra = {"display": "popup"}


class OIDCCEnsureRequestWithUnknownParameterSucceeds(_ExtraParams):
    name = "oidcc-ensure-request-with-unknown-parameter-succeeds"
    extra = {"extra": "foobar"}


class OIDCCClaimsLocales(_ExtraParams):
    name = "oidcc-claims-locales"
    extra = {"claims_locales": "se"}


class OIDCCLoginHint(_ExtraParams):
    name = "oidcc-login-hint"

    def extra_params(self) -> dict:
        hint = self.ctx.login_hint
        if not hint:
            host = urllib.parse.urlsplit(self.server.get("issuer", "")).hostname
            hint = f"buffy@{host}"
        return {"login_hint": hint}


class OIDCCUiLocales(_ExtraParams):
    name = "oidcc-ui-locales"

    def extra_params(self) -> dict:
        return {"ui_locales": self.ctx.ui_locales or "se"}


class OIDCCEnsureRequestWithAcrValuesSucceeds(_ExtraParams):
    name = "oidcc-ensure-request-with-acr-values-succeeds"

    def extra_params(self) -> dict:
        sup = self.server.get("acr_values_supported")
        if sup is not None:
            if not isinstance(sup, list):
                self.fail("OIDCCAddAcrValuesToAuthorizationEndpointRequest", "acr_values_supported is not an array")
            return {"acr_values": " ".join(str(v) for v in sup)}
        return {"acr_values": "1 2"}

    def perform_id_token_validation(self) -> None:
        super().perform_id_token_validation()
        self.cont(WARNING, ValidateIdTokenACRClaimAgainstAcrValuesRequest)


class OIDCCEnsureRequestWithValidPkceSucceeds(_ExtraParams):
    name = "oidcc-ensure-request-with-valid-pkce-succeeds"

    def extra_params(self) -> dict:
        alphabet = string.ascii_letters + string.digits + "-._~"
        self.code_verifier = "".join(secrets.choice(alphabet) for _ in range(128))  # CreateRandomCodeVerifier
        challenge = b64url(hashlib.sha256(self.code_verifier.encode("ascii")).digest())  # CreateS256CodeChallenge
        return {"code_challenge": challenge, "code_challenge_method": "S256"}  # AddCodeChallengeToAuthorizationEndpointRequest

    def create_authorization_code_request(self) -> None:
        super().create_authorization_code_request()
        self.token_endpoint_request_form_parameters["code_verifier"] = self.code_verifier  # AddCodeVerifierToTokenEndpointRequest
