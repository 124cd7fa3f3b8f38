"""Basic OP modules about code reuse, redirect URIs, POST and request objects."""

from __future__ import annotations

import json
import time
import urllib.parse

from .core import CondError, FAILURE, WARNING, b64url, build_url, random_alnum, short
from .browser import Page
from .cond_server import CheckDiscEndpointRequestParameterSupported
from .cond_token import CallTokenEndpointAndReturnFullResponse, CheckErrorDescriptionFromTokenEndpointResponseErrorContainsCRLFTAB, CheckErrorFromTokenEndpointResponseErrorInvalidGrant, CheckTokenEndpointHttpStatus400, CheckTokenEndpointReturnedJsonContentType, ServerAllowedReusingAuthorizationCode, ValidateErrorDescriptionFromTokenEndpointResponseError, ValidateErrorFromTokenEndpointResponseError, ValidateErrorUriFromTokenEndpointResponseError
from .cond_userinfo import CallProtectedResource, EnsureHttpStatusCodeIs4xx
from .server_test import AbstractOIDCCServerTest, ExpectingPlaceholderOrCallback
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .browser import Callback, Navigation
    from .module import Module


class AbstractOIDCCAuthCodeReuse(AbstractOIDCCServerTest):
    def on_post_authorization_flow_complete(self) -> None:
        self.test_reuse_of_authorization_code()

    def test_reuse_of_authorization_code(self) -> None:
        self.stop(CallTokenEndpointAndReturnFullResponse)  # same code, same client authentication
        self.check_response()

    def check_response(self) -> None:
        self.cont(FAILURE, CheckTokenEndpointHttpStatus400)
        self.cont(FAILURE, CheckTokenEndpointReturnedJsonContentType)
        self.cont(FAILURE, CheckErrorFromTokenEndpointResponseErrorInvalidGrant)
        self.cont(FAILURE, ValidateErrorFromTokenEndpointResponseError)
        self.cont(WARNING, CheckErrorDescriptionFromTokenEndpointResponseErrorContainsCRLFTAB)
        self.cont(FAILURE, ValidateErrorDescriptionFromTokenEndpointResponseError)
        self.cont(FAILURE, ValidateErrorUriFromTokenEndpointResponseError)


class OIDCCAuthCodeReuse(AbstractOIDCCAuthCodeReuse):
    name = "oidcc-codereuse"

    def check_response(self) -> None:
        if self.token_endpoint_response_http_status == 200:
            self.cont(WARNING, ServerAllowedReusingAuthorizationCode)
        else:
            super().check_response()


class OIDCCAuthCodeReuseAfter30Seconds(AbstractOIDCCAuthCodeReuse):
    name = "oidcc-codereuse-30seconds"

    def test_reuse_of_authorization_code(self) -> None:
        time.sleep(30)  # WaitFor30Seconds
        super().test_reuse_of_authorization_code()

    def check_response(self) -> None:
        super().check_response()
        self.resource_method = "GET"
        self.stop(CallProtectedResource)  # the access token issued from the reused code
        self.cont(WARNING, EnsureHttpStatusCodeIs4xx, self.resource_endpoint_response_full, "resource")


class OIDCCEnsureRegisteredRedirectUri(ExpectingPlaceholderOrCallback):
    name = "oidcc-ensure-registered-redirect-uri"
    login_allowed = False
    placeholder = "ExpectRedirectUriErrorPage"

    def on_configure(self) -> None:
        # CreateBadRedirectUriByAppending: <registered redirect_uri>/<random>
        self.registered_redirect_uri = self.redirect_uri
        self.bad_redirect_path = random_alnum(10)
        self.redirect_uri = self.registered_redirect_uri.rstrip("/") + "/" + self.bad_redirect_path

    def on_callback_instead_of_page(self, cb: Callback) -> None:
        if self.same_endpoint(cb.url, self.redirect_uri):
            self.fail("handleHttp", "The authorization server redirected the user to the requested but randomised/unregistered redirect uri "
                      f"({cb.url}). This must not happen as the provided redirect uri could not have been registered.")
        if self.same_endpoint(cb.url, self.registered_redirect_uri):
            self.fail("processCallback", "The authorization server called the registered redirect uri. This should not have happened as the "
                      f"client provided a bad redirect_uri in the request ({cb.url}).")
        self.fail(self.placeholder, f"the OP redirected the browser to {cb.url} instead of showing an error page")


class OIDCCEnsurePostRequestSucceeds(AbstractOIDCCServerTest):
    name = "oidcc-ensure-post-request-succeeds"

    def perform_redirect(self, method: str = "GET") -> None:
        nav = self.browser.navigate(self.redirect_to_authorization_endpoint, "POST")
        if isinstance(nav.final, Page):
            # the suite waits 30 s for the redirect_uri to be called, then ExpectRedirectUriHasBeenCalled (WARNING)
            self.warn("ExpectRedirectUriHasBeenCalled",
                      "'Authorization Servers MUST support the use of the HTTP GET and POST methods at the Authorization Endpoint' "
                      "(OIDCC 3.1.2.1); the POST was answered with a " + nav.final.describe())
            return
        self.receive_callback(nav.final)


class AbstractOIDCCRequestObjectServerTest(AbstractOIDCCServerTest):
    REQUIRED_DUPLICATES = ("response_type", "client_id", "scope", "redirect_uri")

    def on_configure(self) -> None:
        self.skip_test_if_none_unsupported()

    def convert_to_request_object(self) -> None:
        """ConvertAuthorizationEndpointRequestToRequestObject + SerializeRequestObjectWithNullAlgorithm"""
        self.request_object_claims = json.loads(json.dumps(self.authorization_endpoint_request))
        header = b64url(json.dumps({"alg": "none"}, separators=(",", ":")).encode())
        body = b64url(json.dumps(self.request_object_claims, separators=(",", ":")).encode())
        self.request_object = f"{header}.{body}."

    def build_request_object_redirect(self) -> None:
        """BuildRequestObjectByValueRedirectToAuthorizationEndpoint (includeDuplicates=true)"""
        params = {"request": self.request_object}
        for key, value in self.authorization_endpoint_request.items():
            ro = self.request_object_claims.get(key)
            if (ro is not None and isinstance(ro, (dict, list))) or isinstance(value, (dict, list)):
                continue
            pv = self.param_value(value)
            if key in self.REQUIRED_DUPLICATES or ro is None or pv != self.param_value(ro):
                params[key] = pv
        self.redirect_to_authorization_endpoint = build_url(self.server["authorization_endpoint"], sorted(params.items()))

    def create_authorization_redirect(self) -> None:
        self.convert_to_request_object()
        self.build_request_object_redirect()

    def on_authorization_callback_response(self) -> None:
        if self.authorization_endpoint_response.get("error") == "request_not_supported":
            self.skip("The 'request_not_supported' error from the authorization endpoint indicates that it does not support request "
                      "objects (which is permitted behaviour), so request objects cannot be tested.")
        self.cont(WARNING, CheckDiscEndpointRequestParameterSupported)
        super().on_authorization_callback_response()


class OIDCCUnsignedRequestObjectSupportedCorrectlyOrRejectedAsUnsupported(AbstractOIDCCRequestObjectServerTest):
    name = "oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported"


def EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri(m: "Module") -> None:
    raise CondError("An invalid redirect_uri was included in the authorization request but the OP redirected to a default "
                    "redirect_uri instead of displaying an error page")


class OIDCCEnsureRequestObjectWithRedirectUri(AbstractOIDCCRequestObjectServerTest, ExpectingPlaceholderOrCallback):
    name = "oidcc-ensure-request-object-with-redirect-uri"
    placeholder = "ExpectRedirectUriErrorPage"
    login_allowed = True

    def create_authorization_redirect(self) -> None:
        self.convert_to_request_object()
        # AddInvalidRedirectUriToAuthorizationRequest (after the conversion: only the URL parameter is invalid)
        p = urllib.parse.urlsplit(self.redirect_uri)
        self.invalid_redirect_uri = urllib.parse.urlunsplit((p.scheme, p.netloc, p.path + "_invalid", p.query, p.fragment))
        self.authorization_endpoint_request = dict(self.authorization_endpoint_request)
        del self.authorization_endpoint_request["redirect_uri"]
        self.authorization_endpoint_request["redirect_uri"] = self.invalid_redirect_uri
        self.build_request_object_redirect()

    def perform_redirect(self, method: str = "GET") -> None:
        ExpectingPlaceholderOrCallback.perform_redirect(self, method)

    def on_page_instead_of_callback(self, nav: Navigation) -> None:
        page = nav.final
        if page.is_login_page:
            self.fail(self.placeholder, "the OP showed the login form again after signing in: " + page.describe())
        self.notes.append(f"{self.placeholder}: invalid redirect_uri error page shown (HTTP {page.status}): {short(page.text, 120)}")

    def on_callback_instead_of_page(self, cb: Callback) -> None:
        if self.same_endpoint(cb.url, self.invalid_redirect_uri):
            self.fail("RedirectToClientExpected", f"the OP redirected to the invalid redirect_uri of the URL parameters ({cb.url}); "
                      "it must use the request object's redirect_uri or show an error page")
        self.receive_callback(cb)

    def on_authorization_callback_response(self) -> None:
        if self.authorization_endpoint_response.get("error") == "request_not_supported":
            self.stop(EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri)
        super().on_authorization_callback_response()
