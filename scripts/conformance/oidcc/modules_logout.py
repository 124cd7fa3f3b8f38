"""The Back-Channel OP plan (OIDCCBackchannelRpInitiatedLogoutTestPlan): logout discovery metadata,
and RP-initiated logout with the OP's back-channel logout request to the relying party."""

from __future__ import annotations

import time
import urllib.parse
from typing import Any, Optional

from .core import FAILURE, INFO, WARNING
from .browser import Callback, Page
from .cond_authorization import CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface
from .cond_discovery import CheckDiscEndpointAllEndpointsAreHttps
from .cond_logout import BuildRedirectToEndSessionEndpoint, CheckDiscEndSessionEndpoint, CheckDiscEndpointBackchannelLogoutSessionSupported, CheckDiscEndpointBackchannelLogoutSupported, CheckForUnexpectedParametersInBackchannelLogoutRequest, CheckForUnexpectedParametersInPostLogoutRedirect, CheckIdTokenSidMatchesLogoutToken, CheckIdTokenSubMatchesLogoutToken, CheckLogoutTokenHasSubOrSid, CheckLogoutTokenNoNonce, CheckPostLogoutState, CreateBackchannelLogoutUri, CreateEndSessionEndpointRequest, CreatePostLogoutRedirectUri, CreateRandomEndSessionState, EnsureIncomingTls12WithSecureCipherOrTls13, EnsureIncomingTls13, ExtractLogoutTokenFromBackchannelLogoutRequest, ValidateLogoutTokenClaims, ValidateLogoutTokenSignature
from .cond_server import GetDynamicServerConfiguration
from .module import Module
from .rp_server import BACKCHANNEL_PATH, RpRequest
from .server_test import AbstractOIDCCServerTest


# How long the port waits for the OP's back-channel POST once the browser is back at the
# post_logout_redirect_uri (the suite waits for it until the test times out).
BACKCHANNEL_WAIT = 10.0


class OIDCCBackchannelLogoutDiscoveryEndpointVerification(Module):
    """@VariantNotApplicable(ServerMetadata=static): runs with discovery."""
    name = "oidcc-backchannel-logout-discovery-endpoint-verification"

    def configure(self) -> None:
        self.stop(GetDynamicServerConfiguration)

    def start(self) -> None:
        self.cont(FAILURE, CheckDiscEndpointAllEndpointsAreHttps)
        self.cont(FAILURE, CheckDiscEndpointBackchannelLogoutSupported)
        # optional in the spec, required for certification: sid in the id_token and the logout token
        self.cont(FAILURE, CheckDiscEndpointBackchannelLogoutSessionSupported)
        self.cont(FAILURE, CheckDiscEndSessionEndpoint)


class AbstractOIDCCRpInitiatedLogout(AbstractOIDCCServerTest):
    """A normal authorization, then the browser goes to the end_session_endpoint; after the logout a
    second authorization with prompt=none must answer with an error that asks for a user interface."""
    first_time = True

    def __init__(self, ctx: Any):
        super().__init__(ctx)
        self.post_logout_redirect_uri: Optional[str] = None
        self.backchannel_logout_uri: Optional[str] = None
        self.end_session_state: Optional[str] = None
        self.end_session_endpoint_request: dict = {}
        self.redirect_to_end_session_endpoint = ""
        self.post_logout_redirect: Optional[dict] = None
        self.end_session_started = 0.0

    def configure_client(self) -> None:
        self.stop(CreatePostLogoutRedirectUri)
        super().configure_client()

    def on_configure(self) -> None:
        self.requested_state_length = 128  # a longer state, to check the OP does not corrupt it

    def create_authorization_request(self) -> None:
        req = self.create_authorization_request_sequence()
        if not self.first_time:
            req["prompt"] = "none"  # AddPromptNoneToAuthorizationEndpointRequest
        self.authorization_endpoint_request = req

    def perform_redirect(self, method: str = "GET") -> None:
        if self.first_time:
            return super().perform_redirect(method)
        nav = self.browser.navigate(self.redirect_to_authorization_endpoint, method, auto_login=False)
        if isinstance(nav.final, Page):
            self.fail("RedirectToClientExpected", "prompt=none after the logout: the OP must redirect back with an error, "
                      "but it displayed a " + nav.final.describe())
        self.receive_callback(nav.final)

    def on_authorization_callback_response(self) -> None:
        if self.first_time:
            self.first_time = False
            super().on_authorization_callback_response()
        else:
            self.perform_generic_authorization_endpoint_error_response_validation()
            self.cont(FAILURE, CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface)

    def on_post_authorization_flow_complete(self) -> None:
        self.stop(CreateRandomEndSessionState)
        self.stop(CreateEndSessionEndpointRequest)
        self.customise_end_session_endpoint_request()
        self.stop(BuildRedirectToEndSessionEndpoint)
        self.perform_redirect_to_end_session_endpoint()

    def customise_end_session_endpoint_request(self) -> None:
        pass

    def perform_redirect_to_end_session_endpoint(self) -> None:
        """browser.goToUrl(redirect_to_end_session_endpoint): the OP may ask the person to confirm
        (the suite's user or browser automation presses the button); the browser must end at the
        post_logout_redirect_uri, which the suite's endpoint receives."""
        self.end_session_started = time.monotonic()
        nav = self.browser.navigate(self.redirect_to_end_session_endpoint, auto_login=False)
        final = nav.final
        form = self.logout_confirmation_form(final)
        if form is not None:
            self.notes.append("the end_session_endpoint asked to confirm the sign-out; the port confirmed")
            final = self.browser.submit(final, form)
        if isinstance(final, Page):
            self.fail("PostLogoutRedirectExpected", "the end_session_endpoint did not redirect to the post_logout_redirect_uri; "
                      "it showed " + final.describe())
        if not self.same_endpoint(final.url, self.post_logout_redirect_uri):
            self.fail("PostLogoutRedirectExpected", f"the OP redirected the browser to {final.url}, not to the "
                      f"post_logout_redirect_uri {self.post_logout_redirect_uri}")
        self.post_logout_redirect = {"query_string_params": dict(final.query)}
        self.on_post_logout_redirect(final)

    def logout_confirmation_form(self, final: Any) -> Optional[dict]:
        """A page (not a login page) whose one form goes back to the OP: a 'sign out?' question."""
        if not isinstance(final, Page) or final.is_login_page or len(final.forms) != 1:
            return None
        form = final.forms[0]
        action = urllib.parse.urljoin(final.url, form["action"] or final.url)
        return form if self.browser.is_op(action) else None

    def on_post_logout_redirect(self, cb: Callback) -> None:
        raise NotImplementedError


class OIDCCBackChannelRpInitiatedLogout(AbstractOIDCCRpInitiatedLogout):
    """Static client: its backchannel_logout_uri is <base>/backchannel_logout and
    <base>/post_logout_redirect one of its post-logout redirect URIs (the port's --rp-listen)."""
    name = "oidcc-backchannel-rp-initiated-logout"

    def __init__(self, ctx: Any):
        super().__init__(ctx)
        self.backchannel_logout_request: Optional[RpRequest] = None
        self.logout_token: Optional[dict] = None

    def configure(self) -> None:
        if self.ctx.rp is not None:
            self.ctx.rp.clear()
        super().configure()

    def configure_client(self) -> None:
        self.stop(CreateBackchannelLogoutUri)
        super().configure_client()

    def on_post_logout_redirect(self, cb: Callback) -> None:
        # handlePostLogoutRedirect, then the back-channel request (either may come first in the suite)
        req = self.ctx.rp.wait_for("POST", BACKCHANNEL_PATH, BACKCHANNEL_WAIT)
        if req is None:
            self.fail("BackchannelLogoutRequestExpected", f"no back-channel logout request reached {self.backchannel_logout_uri} "
                      f"within {BACKCHANNEL_WAIT:.0f} s of the post-logout redirect (the suite waits until the test times out)")
        self.notes.append(f"back-channel logout request received {req.received - self.end_session_started:.1f} s "
                          "after the browser went to the end_session_endpoint")
        self.backchannel_logout_request = req
        self.validate_logout_results()

    def validate_logout_results(self) -> None:
        # Verify backchannel logout request
        self.cont(WARNING, EnsureIncomingTls12WithSecureCipherOrTls13)
        self.cont(WARNING, EnsureIncomingTls13)
        # ValidateLogoutTokenFromBackchannelLogoutRequestEncryption: skipped (INFO), no client_jwks
        self.stop(ExtractLogoutTokenFromBackchannelLogoutRequest)
        self.cont(WARNING, CheckForUnexpectedParametersInBackchannelLogoutRequest)
        self.cont(FAILURE, ValidateLogoutTokenSignature)
        self.cont(FAILURE, ValidateLogoutTokenClaims)
        claims = self.logout_token["claims"]
        if "sub" in claims:
            self.cont(FAILURE, CheckIdTokenSubMatchesLogoutToken)
        else:
            self.skipped_condition(CheckIdTokenSubMatchesLogoutToken, INFO, "no sub in the logout token")
        if "sid" in claims:
            self.cont(FAILURE, CheckIdTokenSidMatchesLogoutToken)
        else:
            self.skipped_condition(CheckIdTokenSidMatchesLogoutToken, INFO, "no sid in the logout token")
        self.cont(FAILURE, CheckLogoutTokenNoNonce)
        self.cont(FAILURE, CheckLogoutTokenHasSubOrSid)
        # Verify frontchannel post logout redirect
        self.cont(FAILURE, CheckPostLogoutState)
        self.cont(WARNING, CheckForUnexpectedParametersInPostLogoutRedirect)
        # the prompt=none authorization request, to check the logout happened
        self.perform_authorization_flow()
