"""AbstractOIDCCServerTest: configure, the authorization request, callback, token, id_token and resource steps."""

from __future__ import annotations

import base64
import json
import urllib.parse
from typing import Any

from .core import FAILURE, INFO, WARNING, build_url, java_urlencode, random_value, short
from .browser import Page
from .cond_server import CheckDistinctKeyIdValueInServerJWKs, CheckForKeyIdInServerJWKs, CheckServerConfiguration, CheckServerKeysIsValid, EnsureJwksHasNoPrivateOrSymmetricKeyMaterial, EnsureServerConfigurationSupportsClientSecretBasic, EnsureServerConfigurationSupportsClientSecretPost, ExtractTLSTestValuesFromServerConfiguration, FetchServerKeys, GetDynamicServerConfiguration, ParseUsableJwksKeys, SetProtectedResourceUrlToUserInfoEndpoint, ValidateJwksStructure, WarnOnUnusableJwksKeys
from .cond_authorization import CheckErrorDescriptionFromAuthorizationEndpointResponseErrorContainsCRLFTAB, CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint, CheckIfAuthorizationEndpointError, CheckMatchingCallbackParameters, CheckStateInAuthorizationResponse, EnsureErrorFromAuthorizationEndpointResponse, ExtractAuthorizationCodeFromAuthorizationResponse, RejectAuthCodeInAuthorizationEndpointResponse, ValidateErrorDescriptionFromAuthorizationEndpointResponseError, ValidateErrorUriFromAuthorizationEndpointResponseError, ValidateIssIfPresentInAuthorizationResponse
from .cond_token import CallTokenEndpointAndReturnFullResponse, CheckForAccessTokenValue, CheckForRefreshTokenValue, CheckIfTokenEndpointResponseError, CheckTokenEndpointHttpStatus200, ExtractAccessTokenFromTokenResponse, ExtractExpiresInFromTokenEndpointResponse, ExtractIdTokenFromTokenResponse, ValidateExpiresIn
from .cond_id_token import CheckForSubjectInIdToken, EnsureIdTokenUpdatedAtValid, ValidateIdToken, ValidateIdTokenACRClaimAgainstRequest, ValidateIdTokenNonce, ValidateIdTokenSignature, ValidateIdTokenStandardClaims
from .cond_userinfo import CallProtectedResource, CallUserInfoEndpoint, EnsureHttpStatusCodeIs200
from .module import Module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .browser import Callback, Navigation


class AbstractOIDCCServerTest(Module):
    """net.openid.conformance.openid.AbstractOIDCCServerTest, variant static_client + discovery + code."""
    client_auth = "client_secret_basic"

    # --- configure ---------------------------------------------------------------------------
    def configure(self) -> None:
        # CreateRedirectUri: the registered redirect URI given on the command line
        self.redirect_uri = self.ctx.redirect_uri
        self.stop(GetDynamicServerConfiguration)
        self.stop(CheckServerConfiguration)
        self.stop(ExtractTLSTestValuesFromServerConfiguration)
        self.stop(FetchServerKeys)
        self.cont(WARNING, CheckServerKeysIsValid)
        self.validate_jwks_sequence()
        self.cont(FAILURE, CheckForKeyIdInServerJWKs)
        self.cont(FAILURE, CheckDistinctKeyIdValueInServerJWKs)
        self.skip_test_if_signing_algorithm_not_supported()
        self.configure_client()
        self.skip_test_if_scopes_not_supported()
        self.configure_protected_resource_url()
        self.on_configure()

    def validate_jwks_sequence(self) -> None:
        """ValidateJwksSequence("server_jwks", ...)"""
        self.cont(FAILURE, EnsureJwksHasNoPrivateOrSymmetricKeyMaterial)
        self.cont(FAILURE, ValidateJwksStructure)
        self.cont(FAILURE, ParseUsableJwksKeys)
        self.cont(WARNING, WarnOnUnusableJwksKeys)

    def skip_test_if_signing_algorithm_not_supported(self) -> None:
        pass

    def skip_test_if_scopes_not_supported(self) -> None:
        pass

    def skip_test_if_none_unsupported(self) -> None:
        v = self.server.get("request_object_signing_alg_values_supported")
        if isinstance(v, list) and "none" not in v:
            self.skip("'none' is not listed in request_object_signing_alg_values_supported - assuming it is not supported.")

    def on_configure(self) -> None:
        pass

    def configure_protected_resource_url(self) -> None:
        self.stop(SetProtectedResourceUrlToUserInfoEndpoint)

    def static_client(self) -> dict:
        """GetStaticClientConfiguration"""
        return dict(self.ctx.client)

    def configure_client(self) -> None:
        self.client = self.static_client()
        self.complete_client_configuration()

    def complete_client_configuration(self) -> None:
        self.client["scope"] = "openid"  # SetScopeInClientConfigurationToOpenId
        if self.client_auth == "client_secret_post":
            self.cont(FAILURE, EnsureServerConfigurationSupportsClientSecretPost)
        else:
            self.cont(FAILURE, EnsureServerConfigurationSupportsClientSecretBasic)

    # --- authorization request ---------------------------------------------------------------
    def start(self) -> None:
        self.perform_authorization_flow()

    def perform_authorization_flow(self) -> None:
        self.create_authorization_request()
        self.create_authorization_redirect()
        self.perform_redirect()

    skip_nonce = False
    skip_response_type = False

    def create_authorization_request(self) -> None:
        self.authorization_endpoint_request = self.create_authorization_request_sequence()

    def create_authorization_request_sequence(self) -> dict:
        """CreateAuthorizationRequestSteps"""
        req: dict = {"client_id": self.client["client_id"], "redirect_uri": self.redirect_uri}
        if self.client.get("scope"):
            req["scope"] = self.client["scope"]
        self.state = random_value(self.requested_state_length)
        req["state"] = self.state
        if self.skip_nonce:
            self.nonce = None
        else:
            self.nonce = random_value(self.requested_nonce_length)
            req["nonce"] = self.nonce
        if not self.skip_response_type:
            req["response_type"] = "code"
        if self.ctx.response_mode == "form_post":
            req["response_mode"] = "form_post"  # SetAuthorizationEndpointRequestResponseModeToFormPost
        return req

    @staticmethod
    def param_value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return str(v)
        if isinstance(v, (dict, list)):
            return json.dumps(v, separators=(",", ":"))
        return str(v)

    def create_authorization_redirect(self) -> None:
        """BuildPlainRedirectToAuthorizationEndpoint: parameters in sorted order."""
        keys = sorted(self.authorization_endpoint_request)
        self.redirect_to_authorization_endpoint = build_url(
            self.server["authorization_endpoint"], [(k, self.param_value(self.authorization_endpoint_request[k])) for k in keys])

    # --- the browser ---------------------------------------------------------------------------
    def perform_redirect(self, method: str = "GET") -> None:
        nav = self.browser.navigate(self.redirect_to_authorization_endpoint, method)
        self.expect_callback(nav)

    def expect_callback(self, nav: Navigation) -> None:
        """The suite waits for the browser to reach the redirect_uri; a page that never redirects
        back leaves the test hanging (it times out): reported as FAILURE here."""
        if isinstance(nav.final, Page):
            what = nav.final.describe()
            if nav.final.is_login_page and nav.login_pages_shown:
                what = "the login form again after signing in (wrong --username/--password?): " + what
            self.fail("RedirectToClientExpected", "the authorization endpoint did not redirect back to the client; it showed " + what)
        self.receive_callback(nav.final)

    def same_endpoint(self, url: str, expected: str) -> bool:
        a = urllib.parse.urlsplit(url)
        b = urllib.parse.urlsplit(expected)
        return (a.scheme, a.netloc.lower(), a.path) == (b.scheme, b.netloc.lower(), b.path)

    def receive_callback(self, cb: Callback) -> None:
        if not self.same_endpoint(cb.url, self.redirect_uri):
            self.fail("RedirectToClientExpected", f"the OP redirected the browser to {cb.url}, not to the redirect_uri {self.redirect_uri}")
        # Only when the URL asked: a request object the OP refuses unread cannot tell it the mode.
        asked = "response_mode=form_post" in urllib.parse.urlsplit(getattr(self, "redirect_to_authorization_endpoint", "")).query
        if asked and not cb.posted:
            self.fail("CheckCallbackHttpMethodIsPost", f"response_mode=form_post, but the OP redirected the browser to {cb.url}")
        self.callback_query_params = dict(cb.query)
        self.callback_fragment_params = dict(urllib.parse.parse_qsl(cb.fragment, keep_blank_values=True))
        self.process_callback()

    def process_callback(self) -> None:
        self.authorization_endpoint_response = self.callback_query_params  # code flow: the query
        self.on_authorization_callback_response()

    def on_authorization_callback_response(self) -> None:
        self.cont(FAILURE, CheckMatchingCallbackParameters)
        self.cont(FAILURE, ValidateIssIfPresentInAuthorizationResponse)
        self.stop(CheckIfAuthorizationEndpointError)
        self.cont(FAILURE, CheckStateInAuthorizationResponse)
        self.stop(ExtractAuthorizationCodeFromAuthorizationResponse)
        self.handle_successful_authorization_endpoint_response()

    def handle_successful_authorization_endpoint_response(self) -> None:
        self.perform_authorization_code_validation()
        self.perform_post_authorization_flow()

    def perform_authorization_code_validation(self) -> None:
        pass

    def perform_post_authorization_flow(self) -> None:
        self.create_authorization_code_request()
        self.request_authorization_code()
        self.request_protected_resource()
        self.on_post_authorization_flow_complete()

    # --- token endpoint --------------------------------------------------------------------------
    def add_client_authentication(self, form: dict, headers: dict) -> None:
        if self.client_auth == "client_secret_post":  # AddFormBasedClientSecretToRequest
            form["client_id"] = self.client["client_id"]
            form["client_secret"] = self.client["client_secret"]
        else:  # AddBasicAuthClientSecretToRequest
            pw = java_urlencode(self.client["client_id"]) + ":" + java_urlencode(self.client["client_secret"])
            headers["Authorization"] = "Basic " + base64.b64encode(pw.encode()).decode()

    def create_authorization_code_request(self) -> None:
        """CreateTokenEndpointRequestForAuthorizationCodeGrant + client authentication"""
        self.token_endpoint_request_form_parameters = {"grant_type": "authorization_code", "code": self.code,
                                                       "redirect_uri": self.redirect_uri}
        self.token_endpoint_request_headers = {}
        self.add_client_authentication(self.token_endpoint_request_form_parameters, self.token_endpoint_request_headers)

    def call_token_endpoint(self) -> None:
        self.stop(CallTokenEndpointAndReturnFullResponse)
        self.stop(CheckTokenEndpointHttpStatus200)

    def request_authorization_code(self) -> None:
        self.call_token_endpoint()
        self.stop(CheckIfTokenEndpointResponseError)
        self.stop(CheckForAccessTokenValue)
        self.stop(ExtractAccessTokenFromTokenResponse)
        self.cont(INFO, ExtractExpiresInFromTokenEndpointResponse)
        if self.expires_in is not None:
            self.cont(FAILURE, ValidateExpiresIn)
        self.cont(INFO, CheckForRefreshTokenValue)
        self.stop(ExtractIdTokenFromTokenResponse)
        self.token_endpoint_id_token = self.id_token
        self.additional_token_endpoint_response_validation()

    def additional_token_endpoint_response_validation(self) -> None:
        self.perform_id_token_validation()

    def perform_id_token_validation(self) -> None:
        """PerformStandardIdTokenChecks"""
        self.cont(FAILURE, ValidateIdToken)
        self.cont(FAILURE, ValidateIdTokenStandardClaims)
        self.cont(FAILURE, ValidateIdTokenNonce)
        self.cont(FAILURE, ValidateIdTokenACRClaimAgainstRequest)
        self.cont(FAILURE, ValidateIdTokenSignature)
        self.cont(FAILURE, CheckForSubjectInIdToken)
        self.cont(FAILURE, EnsureIdTokenUpdatedAtValid)
        # ValidateEncryptedIdTokenHasKid: skipped (id_token is not a JWE)

    def request_protected_resource(self) -> None:
        self.resource_method = "GET"
        self.stop(CallProtectedResource)
        self.cont(FAILURE, EnsureHttpStatusCodeIs200, self.resource_endpoint_response_full, "resource")

    def perform_generic_authorization_endpoint_error_response_validation(self) -> None:
        self.cont(FAILURE, CheckStateInAuthorizationResponse)
        self.cont(FAILURE, ValidateIssIfPresentInAuthorizationResponse)
        self.cont(FAILURE, EnsureErrorFromAuthorizationEndpointResponse)
        self.cont(FAILURE, RejectAuthCodeInAuthorizationEndpointResponse)
        self.cont(WARNING, CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint)
        self.cont(WARNING, CheckErrorDescriptionFromAuthorizationEndpointResponseErrorContainsCRLFTAB)
        self.cont(FAILURE, ValidateErrorDescriptionFromAuthorizationEndpointResponseError)
        self.cont(FAILURE, ValidateErrorUriFromAuthorizationEndpointResponseError)

    def on_post_authorization_flow_complete(self) -> None:
        pass  # fireTestFinished

    # --- user info helpers ----------------------------------------------------------------------
    def call_user_info_endpoint_get(self) -> None:
        self.resource_method = "GET"
        self.stop(CallUserInfoEndpoint)
        self.cont(FAILURE, EnsureHttpStatusCodeIs200, self.userinfo_endpoint_response_full, "userinfo")


class ExpectingPlaceholderOrCallback(AbstractOIDCCServerTest):
    """AbstractOIDCCServerTestExpectingAuthorizationEndpointPlaceholderOrCallback: the OP either
    redirects back, or shows an error page (in the suite: a screenshot the user uploads).
    ``login_allowed``: whether a login page may come before the outcome."""
    login_allowed = True
    placeholder = "ExpectErrorPage"

    def perform_redirect(self, method: str = "GET") -> None:
        nav = self.browser.navigate(self.redirect_to_authorization_endpoint, method, auto_login=self.login_allowed)
        if isinstance(nav.final, Page):
            self.on_page_instead_of_callback(nav)
            return
        self.on_callback_instead_of_page(nav.final)

    def on_page_instead_of_callback(self, nav: Navigation) -> None:
        page = nav.final
        if page.is_login_page:
            self.fail(self.placeholder, "expected an error page, but the OP showed a login page: " + page.describe())
        self.notes.append(f"{self.placeholder}: error page shown as required (HTTP {page.status}): {short(page.text, 120)}")

    def on_callback_instead_of_page(self, cb: Callback) -> None:
        self.receive_callback(cb)
