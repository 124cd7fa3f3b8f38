"""OIDCCBasicTestPlan, OIDCCConfigTestPlan and OIDCCBackchannelRpInitiatedLogoutTestPlan: the modules in
plan order, for a static client."""

from __future__ import annotations

from typing import Any, Callable

from .modules_basic import OIDCCAlternateHappyFlow, OIDCCClaimsLocales, OIDCCDisplayPage, OIDCCDisplayPopup, OIDCCEnsureRequestWithAcrValuesSucceeds, OIDCCEnsureRequestWithUnknownParameterSucceeds, OIDCCEnsureRequestWithValidPkceSucceeds, OIDCCEnsureRequestWithoutNonceSucceedsForCodeFlow, OIDCCIdTokenSignature, OIDCCLoginHint, OIDCCResponseTypeMissing, OIDCCScopeAddress, OIDCCScopeAll, OIDCCScopeEmail, OIDCCScopePhone, OIDCCScopeProfile, OIDCCServerTest, OIDCCServerTestClientSecretPost, OIDCCUiLocales, OIDCCUserInfoGet, OIDCCUserInfoPostBody, OIDCCUserInfoPostHeader
from .modules_session import OIDCCClaimsEssential, OIDCCIdTokenHint, OIDCCMaxAge1, OIDCCMaxAge10000, OIDCCPromptLogin, OIDCCPromptNoneLoggedIn, OIDCCPromptNoneNotLoggedIn
from .modules_requests import OIDCCAuthCodeReuse, OIDCCAuthCodeReuseAfter30Seconds, OIDCCEnsurePostRequestSucceeds, OIDCCEnsureRegisteredRedirectUri, OIDCCEnsureRequestObjectWithRedirectUri, OIDCCUnsignedRequestObjectSupportedCorrectlyOrRejectedAsUnsupported
from .modules_refresh_config import OIDCCDiscoveryEndpointVerification, OIDCCRefreshToken
from .modules_logout import OIDCCBackChannelRpInitiatedLogout, OIDCCBackchannelLogoutDiscoveryEndpointVerification
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .module import Context, Module


def _runner(cls: type) -> Callable[[Context], Module]:
    def run(ctx: Context) -> Module:
        return cls(ctx).run()
    run.__name__ = cls.name.replace("-", "_")
    run.__doc__ = f"{cls.name} ({cls.__name__})"
    return run


oidcc_server = _runner(OIDCCServerTest)


oidcc_response_type_missing = _runner(OIDCCResponseTypeMissing)


oidcc_userinfo_get = _runner(OIDCCUserInfoGet)


oidcc_userinfo_post_header = _runner(OIDCCUserInfoPostHeader)


oidcc_userinfo_post_body = _runner(OIDCCUserInfoPostBody)


oidcc_ensure_request_without_nonce_succeeds_for_code_flow = _runner(OIDCCEnsureRequestWithoutNonceSucceedsForCodeFlow)


oidcc_scope_profile = _runner(OIDCCScopeProfile)


oidcc_scope_email = _runner(OIDCCScopeEmail)


oidcc_scope_address = _runner(OIDCCScopeAddress)


oidcc_scope_phone = _runner(OIDCCScopePhone)


oidcc_scope_all = _runner(OIDCCScopeAll)


oidcc_alternate_happy_flow = _runner(OIDCCAlternateHappyFlow)


oidcc_display_page = _runner(OIDCCDisplayPage)


oidcc_display_popup = _runner(OIDCCDisplayPopup)


oidcc_prompt_login = _runner(OIDCCPromptLogin)


oidcc_prompt_none_not_logged_in = _runner(OIDCCPromptNoneNotLoggedIn)


oidcc_prompt_none_logged_in = _runner(OIDCCPromptNoneLoggedIn)


oidcc_max_age_1 = _runner(OIDCCMaxAge1)


oidcc_max_age_10000 = _runner(OIDCCMaxAge10000)


oidcc_ensure_request_with_unknown_parameter_succeeds = _runner(OIDCCEnsureRequestWithUnknownParameterSucceeds)


oidcc_id_token_hint = _runner(OIDCCIdTokenHint)


oidcc_login_hint = _runner(OIDCCLoginHint)


oidcc_ui_locales = _runner(OIDCCUiLocales)


oidcc_claims_locales = _runner(OIDCCClaimsLocales)


oidcc_ensure_request_with_acr_values_succeeds = _runner(OIDCCEnsureRequestWithAcrValuesSucceeds)


oidcc_codereuse = _runner(OIDCCAuthCodeReuse)


oidcc_codereuse_30seconds = _runner(OIDCCAuthCodeReuseAfter30Seconds)


oidcc_ensure_registered_redirect_uri = _runner(OIDCCEnsureRegisteredRedirectUri)


oidcc_ensure_post_request_succeeds = _runner(OIDCCEnsurePostRequestSucceeds)


oidcc_server_client_secret_post = _runner(OIDCCServerTestClientSecretPost)


oidcc_unsigned_request_object_supported_correctly_or_rejected_as_unsupported = _runner(
    OIDCCUnsignedRequestObjectSupportedCorrectlyOrRejectedAsUnsupported)


oidcc_claims_essential = _runner(OIDCCClaimsEssential)


oidcc_ensure_request_object_with_redirect_uri = _runner(OIDCCEnsureRequestObjectWithRedirectUri)


oidcc_refresh_token = _runner(OIDCCRefreshToken)


oidcc_ensure_request_with_valid_pkce_succeeds = _runner(OIDCCEnsureRequestWithValidPkceSucceeds)


oidcc_discovery_endpoint_verification = _runner(OIDCCDiscoveryEndpointVerification)


oidcc_backchannel_logout_discovery_endpoint_verification = _runner(OIDCCBackchannelLogoutDiscoveryEndpointVerification)


oidcc_backchannel_rp_initiated_logout = _runner(OIDCCBackChannelRpInitiatedLogout)


oidcc_idtoken_signature = _runner(OIDCCIdTokenSignature)  # only with --include-not-applicable


# OIDCCBasicTestPlan, in the plan's order, for static_client / code / client_secret_basic.
# (None, reason): a module of the plan that VariantService drops for this variant.
BASIC_PLAN: list[tuple[str, Any]] = [
    ("oidcc-server", oidcc_server),
    ("oidcc-response-type-missing", oidcc_response_type_missing),
    ("oidcc-idtoken-signature", "not applicable: @VariantNotApplicable(ClientRegistration=static_client); it needs dynamic registration"),
    ("oidcc-idtoken-unsigned", "not applicable: @VariantNotApplicable(ClientRegistration=static_client); it registers a client with id_token_signed_response_alg=none"),
    ("oidcc-userinfo-get", oidcc_userinfo_get),
    ("oidcc-userinfo-post-header", oidcc_userinfo_post_header),
    ("oidcc-userinfo-post-body", oidcc_userinfo_post_body),
    ("oidcc-ensure-request-without-nonce-succeeds-for-code-flow", oidcc_ensure_request_without_nonce_succeeds_for_code_flow),
    ("oidcc-scope-profile", oidcc_scope_profile),
    ("oidcc-scope-email", oidcc_scope_email),
    ("oidcc-scope-address", oidcc_scope_address),
    ("oidcc-scope-phone", oidcc_scope_phone),
    ("oidcc-scope-all", oidcc_scope_all),
    ("oidcc-alternate-happy-flow", oidcc_alternate_happy_flow),
    ("oidcc-display-page", oidcc_display_page),
    ("oidcc-display-popup", oidcc_display_popup),
    ("oidcc-prompt-login", oidcc_prompt_login),
    ("oidcc-prompt-none-not-logged-in", oidcc_prompt_none_not_logged_in),
    ("oidcc-prompt-none-logged-in", oidcc_prompt_none_logged_in),
    ("oidcc-max-age-1", oidcc_max_age_1),
    ("oidcc-max-age-10000", oidcc_max_age_10000),
    ("oidcc-ensure-request-with-unknown-parameter-succeeds", oidcc_ensure_request_with_unknown_parameter_succeeds),
    ("oidcc-id-token-hint", oidcc_id_token_hint),
    ("oidcc-login-hint", oidcc_login_hint),
    ("oidcc-ui-locales", oidcc_ui_locales),
    ("oidcc-claims-locales", oidcc_claims_locales),
    ("oidcc-ensure-request-with-acr-values-succeeds", oidcc_ensure_request_with_acr_values_succeeds),
    ("oidcc-codereuse", oidcc_codereuse),
    ("oidcc-codereuse-30seconds", oidcc_codereuse_30seconds),
    ("oidcc-ensure-registered-redirect-uri", oidcc_ensure_registered_redirect_uri),
    ("oidcc-ensure-post-request-succeeds", oidcc_ensure_post_request_succeeds),
    ("oidcc-server-client-secret-post", oidcc_server_client_secret_post),
    ("oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported",
     "not applicable: @VariantNotApplicable(ClientRegistration=static_client); it registers request_uris dynamically"),
    ("oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported",
     oidcc_unsigned_request_object_supported_correctly_or_rejected_as_unsupported),
    ("oidcc-claims-essential", oidcc_claims_essential),
    ("oidcc-ensure-request-object-with-redirect-uri", oidcc_ensure_request_object_with_redirect_uri),
    ("oidcc-refresh-token", oidcc_refresh_token),
    ("oidcc-ensure-request-with-valid-pkce-succeeds", oidcc_ensure_request_with_valid_pkce_succeeds),
]


CONFIG_PLAN: list[tuple[str, Any]] = [
    ("oidcc-discovery-endpoint-verification", oidcc_discovery_endpoint_verification),
]


# OIDCCBackchannelRpInitiatedLogoutTestPlan ("Back-Channel OP"): entry 1 with ServerMetadata=discovery,
# entry 2 with discovery, client_secret_basic and ResponseMode=default. Both apply to a static client.
BACKCHANNEL_PLAN: list[tuple[str, Any]] = [
    ("oidcc-backchannel-logout-discovery-endpoint-verification", oidcc_backchannel_logout_discovery_endpoint_verification),
    ("oidcc-backchannel-rp-initiated-logout", oidcc_backchannel_rp_initiated_logout),
]
