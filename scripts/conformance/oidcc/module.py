"""The test-module machinery: the run's context, condition calls with the suite's severities, outcomes."""

from __future__ import annotations

import requests
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .core import CondError, FAILURE, SkipModule, StopModule, WARNING
from .browser import Browser
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from .browser import BackChannel, HttpResult
    from .rp_server import RpEndpoints


@dataclass
class Context:
    issuer: str
    discovery_url: str
    client: dict
    client2: Optional[dict]
    post_client: dict
    redirect_uri: str
    username: str
    password: str
    verify: Any
    timeout: float
    login_hint: Optional[str]
    ui_locales: Optional[str]
    http: BackChannel
    op_origins: set
    verbose: bool = False
    # The plan's ResponseMode variant: None (default, the query) or "form_post".
    response_mode: Optional[str] = None
    # The relying party's endpoints the port hosts (--rp-listen): the Back-Channel OP plan.
    rp: Optional[RpEndpoints] = None


class Module:
    """One test module run; attributes are the suite's environment."""
    name = "?"

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.results: list[tuple[str, str, str]] = []  # (SUCCESS|FAILURE|WARNING|INFO, condition, message)
        self.notes: list[str] = []
        self.skip_reason: Optional[str] = None
        self.browser = Browser(ctx)
        # environment
        self.server: dict = {}
        self.server_jwks: dict = {}
        self.discovery_endpoint_response: Optional[HttpResult] = None
        self.client: dict = {}
        self.redirect_uri = ctx.redirect_uri
        self.authorization_endpoint_request: dict = {}
        self.redirect_to_authorization_endpoint = ""
        self.state: Optional[str] = None
        self.nonce: Optional[str] = None
        self.requested_state_length: Optional[int] = None
        self.requested_nonce_length: Optional[int] = None
        self.callback_query_params: dict = {}
        self.callback_fragment_params: dict = {}
        self.authorization_endpoint_response: dict = {}
        self.code: Optional[str] = None
        self.token_endpoint_request_form_parameters: dict = {}
        self.token_endpoint_request_headers: dict = {}
        self.token_endpoint_response_full: Optional[HttpResult] = None
        self.token_endpoint_response_http_status: Optional[int] = None
        self.token_endpoint_response_headers: dict = {}
        self.token_endpoint_response: Optional[dict] = None
        self.access_token: Optional[dict] = None
        self.first_access_token: Optional[dict] = None
        self.second_access_token: Optional[dict] = None
        self.expires_in: Optional[dict] = None
        self.id_token: Optional[dict] = None
        self.token_endpoint_id_token: Optional[dict] = None
        self.first_id_token: Optional[dict] = None
        self.second_id_token: Optional[dict] = None
        self.refresh_token: Optional[str] = None
        self.at_hash: Optional[dict] = None
        self.c_hash: Optional[dict] = None
        self.protected_resource_url: Optional[str] = None
        self.resource_method = "GET"
        self.resource_endpoint_response_full: Optional[HttpResult] = None
        self.userinfo_endpoint_response_full: Optional[HttpResult] = None
        self.userinfo: Optional[dict] = None
        self.scopes_not_supported = False

    # --- condition calls -------------------------------------------------------------------
    def call(self, severity: str, fn: Callable, *args: Any, stop: bool = False) -> bool:
        name = fn.__name__
        try:
            fn(self, *args)
        except CondError as e:
            self.results.append((severity, name, str(e)))
            if stop:
                raise StopModule()
            return False
        except (StopModule, SkipModule):
            raise
        except Exception as e:  # a bug or unexpected data: the Java condition would throw too
            self.results.append((FAILURE, name, f"unexpected error: {type(e).__name__}: {e}"))
            if self.ctx.verbose:
                traceback.print_exc()
            raise StopModule()
        self.results.append(("SUCCESS", name, ""))
        return True

    def stop(self, fn: Callable, *args: Any) -> bool:
        """callAndStopOnFailure"""
        return self.call(FAILURE, fn, *args, stop=True)

    def cont(self, severity: str, fn: Callable, *args: Any) -> bool:
        """callAndContinueOnFailure(..., severity)"""
        return self.call(severity, fn, *args)

    def skipped_condition(self, fn: Callable, severity: str, why: str) -> None:
        """condition(...).skipIfElementMissing(...).onSkip(severity)"""
        if severity in (FAILURE, WARNING):
            self.results.append((severity, fn.__name__, f"skipped: {why}"))

    def fail(self, name: str, msg: str, stop: bool = True) -> None:
        """A TestFailureException, or a port-specific mechanical check of an interactive step."""
        self.results.append((FAILURE, name, msg))
        if stop:
            raise StopModule()

    def warn(self, name: str, msg: str) -> None:
        self.results.append((WARNING, name, msg))

    def skip(self, reason: str) -> None:
        raise SkipModule(reason)

    # --- running ----------------------------------------------------------------------------
    def run(self) -> "Module":
        try:
            self.configure()
            self.start()
        except StopModule:
            pass
        except SkipModule as s:
            self.skip_reason = str(s)
        except requests.RequestException as e:
            self.results.append((FAILURE, "HTTP", f"{type(e).__name__}: {e}"))
        except Exception as e:
            self.results.append((FAILURE, "port", f"unexpected error: {type(e).__name__}: {e}"))
            if self.ctx.verbose:
                traceback.print_exc()
        return self

    def configure(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        raise NotImplementedError

    @property
    def outcome(self) -> str:
        if any(r[0] == FAILURE for r in self.results):
            return "FAIL"
        if self.skip_reason is not None:
            return "SKIPPED"
        if any(r[0] == WARNING for r in self.results):
            return "WARNING"
        return "PASS"

    def reasons(self) -> str:
        if self.outcome == "SKIPPED":
            parts = [self.skip_reason or ""]
            parts += [f"[W] {c}: {msg}" for s, c, msg in self.results if s == WARNING]
            return " | ".join(parts)
        fails = [f"{c}: {msg}" for s, c, msg in self.results if s == FAILURE]
        warns = [f"[W] {c}: {msg}" for s, c, msg in self.results if s == WARNING]
        return " | ".join(fails + warns + self.notes)
