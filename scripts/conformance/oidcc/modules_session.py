"""Basic OP modules about the browser session: prompt, max_age, id_token_hint, claims."""

from __future__ import annotations

import time

from .core import FAILURE, WARNING
from .browser import Callback, Page
from .cond_authorization import CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface
from .cond_id_token import EnsureIdTokenDoesNotContainName
from .cond_id_token_extra import CheckIdTokenAuthTimeClaimPresentDueToMaxAge, CheckIdTokenAuthTimeClaimsSameIfPresent, CheckIdTokenAuthTimeIsRecentIfPresent, CheckIdTokenSubConsistentForSecondAuthorization, CheckSecondIdTokenAuthTimeIsLaterIfPresent
from .cond_userinfo import EnsureUserInfoContainsName
from .server_test import AbstractOIDCCServerTest
from .modules_basic import AbstractOIDCCReturnedClaimsServerTest


class OIDCCClaimsEssential(AbstractOIDCCReturnedClaimsServerTest):
    name = "oidcc-claims-essential"

    def skip_test_if_scopes_not_supported(self) -> None:
        pass

    def create_authorization_request_sequence(self) -> dict:
        req = super().create_authorization_request_sequence()
        # AddUserInfoEssentialNameClaimToAuthorizationEndpointRequest
        req.setdefault("claims", {}).setdefault("userinfo", {})["name"] = {"essential": True}
        return req

    def validate_user_info_response(self) -> None:
        super().validate_user_info_response()
        self.cont(WARNING, EnsureUserInfoContainsName)
        self.cont(WARNING, EnsureIdTokenDoesNotContainName)


class OIDCCPromptNoneNotLoggedIn(AbstractOIDCCServerTest):
    name = "oidcc-prompt-none-not-logged-in"

    def create_authorization_request_sequence(self) -> dict:
        self.requested_state_length = 128
        req = super().create_authorization_request_sequence()
        req["prompt"] = "none"
        return req

    def perform_redirect(self, method: str = "GET") -> None:
        nav = self.browser.navigate(self.redirect_to_authorization_endpoint, method, auto_login=False)
        if isinstance(nav.final, Page):
            self.fail("RedirectToClientExpected", "prompt=none: the OP must redirect back with an error, but it displayed a "
                      + nav.final.describe())
        self.receive_callback(nav.final)

    def on_authorization_callback_response(self) -> None:
        self.perform_generic_authorization_endpoint_error_response_validation()
        self.cont(FAILURE, CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface)


class AbstractOIDCCSameAuthTwiceServerTest(AbstractOIDCCServerTest):
    first_time = True
    second_is_prompt_none = False

    def create_authorization_request(self) -> None:
        if self.first_time:
            self.authorization_endpoint_request = self.create_first_authorization_request()
        else:
            self.authorization_endpoint_request = self.create_second_authorization_request()

    def create_first_authorization_request(self) -> dict:
        return self.create_authorization_request_sequence()

    def create_second_authorization_request(self) -> dict:
        raise NotImplementedError

    def perform_redirect(self, method: str = "GET") -> None:
        if self.first_time:
            return super().perform_redirect(method)
        # second authorization: the OP must answer without asking the user to log in
        nav = self.browser.navigate(self.redirect_to_authorization_endpoint, method, auto_login=not self.second_is_prompt_none)
        if isinstance(nav.final, Page):
            self.fail("RedirectToClientExpected", "second authorization: the OP must redirect back without user interaction, but it displayed a "
                      + nav.final.describe())
        if nav.login_pages_shown:
            self.fail("ExpectNoLoginPage", "second authorization: the OP asked the user to log in again (module summary: the "
                      "authorization server must not request that the user logs in)", stop=False)
        self.receive_callback(nav.final)

    def on_post_authorization_flow_complete(self) -> None:
        if self.first_time:
            self.first_time = False
            self.validate_first_id_token()
            self.first_id_token = self.id_token
            self.perform_authorization_flow()
        else:
            self.validate_first_and_second_id_tokens()

    def validate_first_id_token(self) -> None:
        pass

    def validate_first_and_second_id_tokens(self) -> None:
        self.cont(FAILURE, CheckIdTokenAuthTimeClaimsSameIfPresent)
        self.cont(FAILURE, CheckIdTokenSubConsistentForSecondAuthorization)


class OIDCCPromptNoneLoggedIn(AbstractOIDCCSameAuthTwiceServerTest):
    name = "oidcc-prompt-none-logged-in"
    second_is_prompt_none = True

    def create_second_authorization_request(self) -> dict:
        req = self.create_authorization_request_sequence()
        req["prompt"] = "none"
        return req


class OIDCCIdTokenHint(AbstractOIDCCSameAuthTwiceServerTest):
    name = "oidcc-id-token-hint"
    second_is_prompt_none = True

    def create_second_authorization_request(self) -> dict:
        req = self.create_authorization_request_sequence()
        req["prompt"] = "none"
        req["id_token_hint"] = self.first_id_token["value"]  # AddIdTokenHintFromFirstLoginToAuthorizationEndpointRequest
        return req


class OIDCCMaxAge10000(AbstractOIDCCSameAuthTwiceServerTest):
    name = "oidcc-max-age-10000"

    def create_first_authorization_request(self) -> dict:
        req = self.create_authorization_request_sequence()
        req["max_age"] = 15000
        return req

    def create_second_authorization_request(self) -> dict:
        req = self.create_authorization_request_sequence()
        req["max_age"] = 10000
        return req

    def validate_first_id_token(self) -> None:
        self.cont(FAILURE, CheckIdTokenAuthTimeClaimPresentDueToMaxAge)

    def validate_first_and_second_id_tokens(self) -> None:
        self.cont(FAILURE, CheckIdTokenAuthTimeClaimPresentDueToMaxAge)
        super().validate_first_and_second_id_tokens()


class _SecondLoginTest(AbstractOIDCCServerTest):
    """OIDCCPromptLogin / OIDCCMaxAge1: the second authorization must show the login page again
    (the suite: ExpectSecondLoginPage placeholder + screenshot)."""
    first_time = True
    wait_seconds = 1.0

    def create_authorization_request(self) -> None:
        if self.first_time:
            self.authorization_endpoint_request = self.create_authorization_request_sequence()
        else:
            time.sleep(self.wait_seconds)  # WaitForOneSecond / WaitFor2Seconds
            req = self.create_authorization_request_sequence()
            req.update(self.second_request_params())
            self.authorization_endpoint_request = req

    def second_request_params(self) -> dict:
        raise NotImplementedError

    def perform_redirect(self, method: str = "GET") -> None:
        if self.first_time:
            return super().perform_redirect(method)
        nav = self.browser.navigate(self.redirect_to_authorization_endpoint, method, auto_login=True)
        if not nav.login_pages_shown:
            what = "redirected straight back to the client" if isinstance(nav.final, Callback) else "showed " + nav.final.describe()
            self.fail("ExpectSecondLoginPage", "The server must ask the user to login for a second time, but it " + what, stop=False)
        self.expect_callback(nav)


class OIDCCPromptLogin(_SecondLoginTest):
    name = "oidcc-prompt-login"
    wait_seconds = 1.0

    def second_request_params(self) -> dict:
        return {"prompt": "login"}

    def on_post_authorization_flow_complete(self) -> None:
        if self.first_time:
            self.first_time = False
            self.first_id_token = self.id_token
            self.perform_authorization_flow()
        else:
            self.cont(FAILURE, CheckSecondIdTokenAuthTimeIsLaterIfPresent)


class OIDCCMaxAge1(_SecondLoginTest):
    name = "oidcc-max-age-1"
    wait_seconds = 2.0

    def second_request_params(self) -> dict:
        return {"max_age": 1}

    def perform_id_token_validation(self) -> None:
        super().perform_id_token_validation()
        if not self.first_time:
            self.cont(FAILURE, CheckIdTokenAuthTimeClaimPresentDueToMaxAge)
            self.cont(FAILURE, CheckSecondIdTokenAuthTimeIsLaterIfPresent)
            self.cont(FAILURE, CheckIdTokenAuthTimeIsRecentIfPresent)

    def on_post_authorization_flow_complete(self) -> None:
        if self.first_time:
            self.first_time = False
            self.first_id_token = self.id_token
            self.perform_authorization_flow()
