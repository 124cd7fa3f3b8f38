"""oidcc-refresh-token (two clients) and the Config OP module."""

from __future__ import annotations

import time
import urllib.parse

from .core import FAILURE, INFO, WARNING
from .cond_server import CheckDiscEndpointClaimsParameterSupported, CheckDiscEndpointRequestParameterSupported, CheckDiscEndpointRequestUriParameterSupported, CheckDiscoveryEndpointReturnedJsonContentType, EnsureDiscoveryEndpointResponseStatusCodeIs200, EnsureJwksHasNoPrivateOrSymmetricKeyMaterial, EnsureServerConfigurationSupportsClientSecretBasic, FetchServerKeys, GetDynamicServerConfiguration, ParseUsableJwksKeys, ValidateJwksStructure, WarnOnUnusableJwksKeys
from .cond_token import CallTokenEndpointAndReturnFullResponse, CheckErrorFromTokenEndpointResponseErrorInvalidGrant, CheckIfTokenEndpointResponseError, CheckTokenEndpointCacheHeaders, CheckTokenEndpointHttpStatus200, CheckTokenEndpointHttpStatus400, CheckTokenEndpointReturnedJsonContentType, CheckTokenTypeIsBearer, CompareIdTokenClaims, EnsureAccessTokenContainsAllowedCharactersOnly, EnsureAccessTokenValuesAreDifferent, EnsureMinimumAccessTokenEntropy, EnsureMinimumRefreshTokenEntropy, EnsureMinimumRefreshTokenLength, EnsureRefreshTokenContainsAllowedCharactersOnly, EnsureServerConfigurationDoesNotSupportRefreshToken, EnsureServerConfigurationSupportsRefreshToken, ExtractAccessTokenFromTokenResponse, ExtractExpiresInFromTokenEndpointResponse, ExtractIdTokenFromTokenResponse, ExtractRefreshTokenFromTokenResponse, ValidateErrorFromTokenEndpointResponseError, ValidateExpiresIn
from .cond_discovery import CheckDiscEndpointAllEndpointsAreHttps, CheckDiscEndpointAuthorizationEndpoint, CheckDiscEndpointDiscoveryUrl, CheckDiscEndpointIssuer, CheckDiscEndpointIssuerIsValidUrl, CheckDiscEndpointLocalesCanonicalCasing, CheckDiscEndpointLocalesSyntax, CheckDiscEndpointRegistrationEndpoint, CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256, CheckDiscEndpointScopesSupportedContainsOpenId, CheckDiscEndpointScopesSupportedSyntax, CheckDiscEndpointSubjectTypesSupported, CheckDiscEndpointTokenEndpoint, CheckDiscEndpointUserinfoEndpoint, CheckForUnexpectedParametersInServerMetadata, CheckJwksUri, EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray, OIDCCCheckDiscEndpointClaimsSupported, OIDCCCheckDiscEndpointGrantTypesSupported, OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported, OIDCCCheckDiscEndpointResponseTypesSupported, OIDCCCheckDiscEndpointUserinfoSigningAlgValuesSupported, ValidateServerMetadataAgainstSchema
from .module import Module
from .server_test import AbstractOIDCCServerTest


class OIDCCRefreshToken(AbstractOIDCCServerTest):
    """AbstractOIDCCMultipleClient + OIDCCRefreshToken"""
    name = "oidcc-refresh-token"
    second = False

    def configure_client(self) -> None:
        self.client = self.static_client()
        self.complete_client_configuration()
        self.client1 = self.client
        if not self.ctx.client2:
            self.fail("GetStaticClient2Configuration", "Definition for client2 not present in supplied configuration (--second-client-id)")
        self.client = dict(self.ctx.client2)
        self.complete_client_configuration()
        self.client2 = self.client
        self.client = self.client1

    def complete_client_configuration(self) -> None:
        self.client["scope"] = "openid"
        ss = self.server.get("scopes_supported")
        if ss is not None:  # SetScopeInClientConfigurationToOpenIdOfflineAccessIfServerSupportsOfflineAccess
            if not isinstance(ss, list):
                self.fail("SetScopeInClientConfigurationToOpenIdOfflineAccessIfServerSupportsOfflineAccess", "'scopes_supported' is not a array")
            if "offline_access" in ss:
                self.client["scope"] = "openid offline_access"
        self.cont(FAILURE, EnsureServerConfigurationSupportsClientSecretBasic)

    def create_authorization_request_sequence(self) -> dict:
        self.requested_nonce_length = 43 if self.second else None
        req = super().create_authorization_request_sequence()
        if "offline_access" in (req.get("scope") or ""):  # AddPromptConsentToAuthorizationEndpointRequestIfScopeContainsOfflineAccess
            req["prompt"] = "consent"
        return req

    def perform_post_authorization_flow(self) -> None:
        self.create_authorization_code_request()
        self.request_authorization_code()
        self.first_access_token = self.access_token
        self.first_id_token = self.id_token
        self.send_refresh_token_request_and_check_id_token_claims()
        self.request_protected_resource()  # with the refreshed access token
        self.on_post_authorization_flow_complete()

    def send_refresh_token_request_and_check_id_token_claims(self) -> None:
        self.cont(INFO, ExtractRefreshTokenFromTokenResponse)
        if not self.refresh_token:
            self.cont(WARNING, EnsureServerConfigurationDoesNotSupportRefreshToken)
            self.skip("Refresh tokens cannot be tested. No refresh token was issued.")
        self.cont(WARNING, EnsureServerConfigurationSupportsRefreshToken)
        self.cont(FAILURE, EnsureRefreshTokenContainsAllowedCharactersOnly)
        self.refresh_token_request_steps()

    def refresh_form(self, with_scope: bool) -> None:
        self.token_endpoint_request_form_parameters = {"grant_type": "refresh_token", "refresh_token": self.refresh_token}
        self.token_endpoint_request_headers = {}
        if with_scope:  # AddScopeToTokenEndpointRequest
            if not self.client.get("scope"):
                self.fail("AddScopeToTokenEndpointRequest", "scope missing/empty in client object")
            self.token_endpoint_request_form_parameters["scope"] = self.client["scope"]
        self.add_client_authentication(self.token_endpoint_request_form_parameters, self.token_endpoint_request_headers)

    def refresh_token_request_steps(self) -> None:
        """RefreshTokenRequestSteps(isSecondClient, ...)"""
        self.refresh_form(with_scope=not self.second)
        time.sleep(1)  # WaitForOneSecond: iat values must differ
        self.stop(CallTokenEndpointAndReturnFullResponse)
        self.cont(FAILURE, CheckTokenEndpointHttpStatus200)
        self.cont(FAILURE, CheckTokenEndpointReturnedJsonContentType)
        self.cont(FAILURE, CheckTokenEndpointCacheHeaders)
        self.stop(CheckIfTokenEndpointResponseError)
        self.stop(ExtractAccessTokenFromTokenResponse)
        self.second_access_token = self.access_token
        self.cont(FAILURE, CheckTokenTypeIsBearer)
        self.cont(FAILURE, EnsureMinimumAccessTokenEntropy)
        self.cont(FAILURE, EnsureAccessTokenContainsAllowedCharactersOnly)
        self.cont(WARNING, ExtractExpiresInFromTokenEndpointResponse)
        if self.expires_in is not None:
            self.cont(FAILURE, ValidateExpiresIn)
        self.cont(INFO, EnsureAccessTokenValuesAreDifferent)
        self.cont(INFO, ExtractIdTokenFromTokenResponse)
        self.second_id_token = self.id_token
        self.cont(INFO, ExtractRefreshTokenFromTokenResponse)
        if (self.token_endpoint_response or {}).get("refresh_token"):
            self.cont(FAILURE, EnsureMinimumRefreshTokenLength)
            self.cont(FAILURE, EnsureMinimumRefreshTokenEntropy)
        if self.second_id_token is not None:
            self.cont(FAILURE, CompareIdTokenClaims)

    def on_post_authorization_flow_complete(self) -> None:
        if not self.second:
            self.refresh_token = None
            self.second = True
            self.client = self.client2  # switchToSecondClient; same browser
            self.perform_authorization_flow()
        else:
            # performSecondClientTests: client 2's refresh_token with client 1's credentials
            self.client = self.client1
            self.second = False
            self.refresh_form(with_scope=True)  # RefreshTokenRequestExpectingErrorSteps
            self.stop(CallTokenEndpointAndReturnFullResponse)
            self.stop(ValidateErrorFromTokenEndpointResponseError)
            self.cont(FAILURE, CheckTokenEndpointHttpStatus400)
            self.cont(FAILURE, CheckTokenEndpointReturnedJsonContentType)
            self.cont(FAILURE, CheckErrorFromTokenEndpointResponseErrorInvalidGrant)


class OIDCCDiscoveryEndpointVerification(Module):
    name = "oidcc-discovery-endpoint-verification"

    def configure(self) -> None:
        self.stop(GetDynamicServerConfiguration)
        self.cont(FAILURE, EnsureDiscoveryEndpointResponseStatusCodeIs200)
        self.cont(FAILURE, CheckDiscoveryEndpointReturnedJsonContentType)

    def start(self) -> None:
        s = self.server
        self.cont(FAILURE, OIDCCCheckDiscEndpointResponseTypesSupported)
        self.cont(FAILURE, CheckDiscEndpointDiscoveryUrl)
        self.cont(FAILURE, CheckDiscEndpointIssuer)
        self.cont(FAILURE, CheckDiscEndpointIssuerIsValidUrl)
        self.cont(FAILURE, ValidateServerMetadataAgainstSchema)
        self.cont(WARNING, CheckForUnexpectedParametersInServerMetadata)
        self.cont(FAILURE, CheckDiscEndpointSubjectTypesSupported)
        self.cont(FAILURE, OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported)
        if "userinfo_signing_alg_values_supported" in s:
            self.cont(FAILURE, OIDCCCheckDiscEndpointUserinfoSigningAlgValuesSupported)
        self.cont(FAILURE, CheckDiscEndpointAuthorizationEndpoint)
        self.cont(FAILURE, CheckDiscEndpointTokenEndpoint)
        if "userinfo_endpoint" in s:
            self.cont(FAILURE, CheckDiscEndpointUserinfoEndpoint)
        else:
            self.skipped_condition(CheckDiscEndpointUserinfoEndpoint, WARNING, "userinfo_endpoint is missing (it is recommended)")
        if "registration_endpoint" in s:
            self.cont(FAILURE, CheckDiscEndpointRegistrationEndpoint)
        self.cont(FAILURE, CheckJwksUri)
        self.stop(FetchServerKeys)
        self.cont(FAILURE, EnsureJwksHasNoPrivateOrSymmetricKeyMaterial)
        self.cont(FAILURE, ValidateJwksStructure)
        self.cont(FAILURE, ParseUsableJwksKeys)
        self.cont(WARNING, WarnOnUnusableJwksKeys)
        self.cont(INFO, CheckDiscEndpointRequestParameterSupported)
        self.cont(INFO, CheckDiscEndpointRequestUriParameterSupported)
        if "request_object_signing_alg_values_supported" in s:
            self.cont(WARNING, CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256)
        self.cont(INFO, CheckDiscEndpointClaimsParameterSupported)
        self.cont(WARNING, OIDCCCheckDiscEndpointClaimsSupported)
        self.cont(FAILURE, OIDCCCheckDiscEndpointGrantTypesSupported)
        if "scopes_supported" in s:
            self.cont(FAILURE, CheckDiscEndpointScopesSupportedContainsOpenId)
        else:
            self.skipped_condition(CheckDiscEndpointScopesSupportedContainsOpenId, WARNING, "scopes_supported is missing")
        self.cont(FAILURE, CheckDiscEndpointScopesSupportedSyntax)
        self.cont(FAILURE, CheckDiscEndpointLocalesSyntax)
        self.cont(WARNING, CheckDiscEndpointLocalesCanonicalCasing)
        self.cont(FAILURE, CheckDiscEndpointAllEndpointsAreHttps)
        self.cont(FAILURE, EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray)
        if urllib.parse.urlsplit(self.ctx.discovery_url).scheme != "https":
            self.notes.append("NOTE: the OP is served over plain http; the Config OP plan requires https for the issuer, the "
                              "discovery URL and every *_endpoint/jwks_uri (serve with server.tls, or behind a TLS proxy, and pass --ca-bundle)")
