"""The relying party's own endpoints, which the suite hosts under its base URL for the logout
modules: ``<base>/backchannel_logout`` (the OP's server-to-server POST, OIDCBCL-2.5) and
``<base>/post_logout_redirect`` (where the browser ends after RP-initiated logout).

``OIDCCBackChannelRpInitiatedLogout.handleBackchannelLogout`` answers every back-channel POST with
200 and ``Cache-Control: no-store`` (the test expects a valid request); the port does the same.
Each request is recorded as the suite's TestDispatcher records it (``requestParts``): lower-cased
headers, ``query_string_params``, the raw body and, for an
``application/x-www-form-urlencoded`` body, ``body_form_params``. Over TLS the negotiated protocol
and cipher (OpenSSL names, as the suite's Apache proxy passes them in ``x-ssl-protocol`` /
``x-ssl-cipher``) are kept for EnsureIncomingTls13 and EnsureIncomingTls12WithSecureCipherOrTls13.
"""

from __future__ import annotations

import http.server
import socket
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Optional

MAX_BODY = 64 << 10


BACKCHANNEL_PATH = "/backchannel_logout"


POST_LOGOUT_PATH = "/post_logout_redirect"


def params_object(query: str) -> dict[str, Any]:
    """mapToJsonObject(convertQueryStringParamsToMap(...)): one value as a string, several as a list."""
    out: dict[str, Any] = {}
    for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True):
        if k in out:
            out[k] = (out[k] if isinstance(out[k], list) else [out[k]]) + [v]
        else:
            out[k] = v
    return out


@dataclass
class RpRequest:
    method: str
    path: str
    headers: dict[str, str]
    query_string_params: dict[str, Any]
    body: str
    body_form_params: Optional[dict[str, Any]]
    tls: Optional[dict[str, str]]  # {"protocol": "TLSv1.3", "cipher": "TLS_AES_128_GCM_SHA256"}; None over http
    received: float = field(default_factory=time.monotonic)


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "oidc-conformance-port-rp/1.0"
    timeout = 10

    def setup(self) -> None:
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(self.timeout)
            self.request.do_handshake()  # in this request's thread, not the accepting one
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = b""
            while len(data) <= MAX_BODY:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            return data
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(min(n, MAX_BODY)) if n > 0 else b""

    def _record(self) -> str:
        parts = urllib.parse.urlsplit(self.path)
        body = self._body().decode("utf-8", "replace")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        tls = None
        if isinstance(self.connection, ssl.SSLSocket):
            tls = {"protocol": self.connection.version() or "", "cipher": (self.connection.cipher() or ("",))[0]}
        req = RpRequest(self.command, parts.path, {k.lower(): v for k, v in self.headers.items()},
                        params_object(parts.query), body,
                        params_object(body) if body and ctype == "application/x-www-form-urlencoded" else None, tls)
        self.server.rp.record(req)  # type: ignore[attr-defined]
        return parts.path

    def _answer(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        if self._record() == BACKCHANNEL_PATH:
            self._answer(200, b"", "text/plain")
        else:
            self._answer(404, b"not found\n", "text/plain")

    def do_GET(self) -> None:
        if self._record() == POST_LOGOUT_PATH:
            self._answer(200, b"<!doctype html><title>Result captured</title><p>Result captured.</p>\n", "text/html")
        else:
            self._answer(404, b"not found\n", "text/plain")


class RpEndpoints:
    """An HTTP (or, with a certificate, HTTPS) listener in a thread of the port, for the whole run."""

    def __init__(self, host: str, port: int, certfile: Optional[str] = None, keyfile: Optional[str] = None):
        self.host, self.port = host, port
        self.certfile, self.keyfile = certfile, keyfile
        self._requests: list[RpRequest] = []
        self._cond = threading.Condition()
        self._server: Optional[http.server.ThreadingHTTPServer] = None

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.certfile else 'http'}://{host}:{self.port}"

    def start(self) -> None:
        cls = http.server.ThreadingHTTPServer
        if ":" in self.host:
            cls = type("ThreadingHTTPServerV6", (cls,), {"address_family": socket.AF_INET6})
        server = cls((self.host, self.port), _Handler)
        server.daemon_threads = True
        server.rp = self  # type: ignore[attr-defined]
        if self.certfile:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.certfile, self.keyfile)
            server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        self._server = server
        threading.Thread(target=server.serve_forever, name="rp-endpoints", daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def record(self, req: RpRequest) -> None:
        with self._cond:
            self._requests.append(req)
            self._cond.notify_all()

    def clear(self) -> None:
        """A module starts with no request received (the suite's endpoints belong to one test)."""
        with self._cond:
            self._requests = []

    def requests(self, method: str, path: str) -> list[RpRequest]:
        with self._cond:
            return [r for r in self._requests if r.method == method and r.path == path]

    def wait_for(self, method: str, path: str, timeout: float) -> Optional[RpRequest]:
        """The first such request received since clear(), waiting at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [r for r in self._requests if r.method == method and r.path == path]
                left = deadline - time.monotonic()
                if found or left <= 0:
                    return found[0] if found else None
                self._cond.wait(left)
