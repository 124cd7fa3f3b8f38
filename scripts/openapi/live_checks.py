"""The live part of check.py (`--base-url`): every documented operation and refused method probed
against a running broker, without credentials.

- Each operation is sent with placeholders for path parameters and an empty body; its answer must
  not be the router's 404, its status must be documented (or the operation has `default`), its
  media type listed, the documented `Location`, `Allow`, `WWW-Authenticate` and `Retry-After`
  headers present, and a JSON body must match the schema.
- The methods of a path's `x-method-not-allowed` must answer 405 with that `Allow`; on a path
  without it, every usual method it has no operation for must answer the router's 404 (so the
  broker serves no method the document does not name). TRACE must answer 405.
"""
from __future__ import annotations

import json

from structure_checks import USUAL_METHODS

# Placeholder values for path parameters (names as the document declares them).
PLACEHOLDERS = {
    "id": "openapi-check-placeholder",
    "client_id": "dyn~openapi-check~00000000-0000-0000-0000-000000000000",
    "authServiceId": "openapi-check-placeholder",
    "name": "openapi-check-missing",
    "path": "openapi/check",
}
ROUTER_NOT_FOUND = {"error": "invalid_request", "error_description": "Not found."}
CHECKED_HEADERS = ["Location", "Allow", "WWW-Authenticate", "Retry-After"]


def request(base: str, method: str, path: str, body: bytes | None, content_type: str | None, timeout: float,
            extra_headers: dict[str, str] | None = None):
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(base)
    connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(parts.hostname, parts.port, timeout=timeout)
    headers = {"Connection": "close", **(extra_headers or {})}
    if content_type:
        headers["Content-Type"] = content_type
    try:
        connection.request(method.upper(), parts.path.rstrip("/") + path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read() if method.lower() != "head" else b""
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        connection.close()


def concrete(path: str) -> str:
    from urllib.parse import quote

    segments = []
    for segment in path.split("/"):
        if segment.startswith("{") and segment.endswith("}"):
            value = PLACEHOLDERS.get(segment[1:-1], "openapi-check")
            segment = "/".join(quote(part, safe="~") for part in value.split("/"))
        segments.append(segment)
    return "/".join(segments)


def json_body(data: bytes):
    try:
        return json.loads(data)
    except ValueError:
        return None


def probe_operation(doc, base: str, path: str, method: str, operation: dict, timeout: float):
    """Returns (ok, line) for one documented operation."""
    content_type, body = None, None
    request_body = doc.resolve(operation.get("requestBody", {})) if operation.get("requestBody") else None
    if request_body:
        types = [t for t in request_body.get("content", {}) if "*" not in t]
        content_type = types[0] if types else None
        body = b""
    elif method in ("post", "put", "patch"):
        body = b""
    url_path = concrete(path)
    label = f"{method.upper():7} {path}"
    try:
        status, headers, data = request(base, method, url_path, body, content_type, timeout)
    except OSError as error:
        return False, f"FAIL {label}: no answer ({error})"
    responses = operation.get("responses", {})
    documented = responses.get(str(status))
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    summary = f"{status} {media or '-'}"
    if status == 404:
        if documented is None or json_body(data) == ROUTER_NOT_FOUND:
            return False, f"FAIL {label}: 404 from the router (route missing)"
    if documented is None:
        documented = responses.get("default")
        if documented is None:
            return False, f"FAIL {label}: {summary}, status not documented"
    documented = doc.resolve(documented)
    problems = []
    content = documented.get("content")
    if content and data and media:
        accepted = [t.lower() for t in content]
        if media not in accepted and "*/*" not in accepted:
            problems.append(f"media type {media} not in {accepted}")
    if content and media == "application/json" and data and content.get("application/json", {}).get("schema"):
        body_value = json_body(data)
        if body_value is None:
            problems.append("body is not JSON")
        else:
            problems += [f"body does not match the schema: {error}" for error in
                         doc.schema_errors(content["application/json"]["schema"], body_value)[:3]]
    for name, header in documented.get("headers", {}).items():
        if name in CHECKED_HEADERS and name.lower() not in headers:
            problems.append(f"documented header {name} missing")
    if problems:
        return False, f"FAIL {label}: {summary}; " + "; ".join(problems)
    return True, f"ok   {label}: {summary}"


def probe_refused(base: str, path: str, item: dict, timeout: float):
    """The methods of `x-method-not-allowed` answer 405 with its `Allow`; on a path without it, the
    usual methods the path has no operation for answer the router's 404 (a route the document
    does not know answers something else)."""
    refused = item.get("x-method-not-allowed")
    if not refused:
        return probe_unrouted(base, path, item, timeout)
    results = []
    for method in refused.get("methods", []):
        label = f"{method.upper():7} {path}"
        body = b"" if method in ("post", "put", "patch") else None
        try:
            status, headers, _ = request(base, method, concrete(path), body, None, timeout)
        except OSError as error:
            results.append((False, f"FAIL {label}: no answer ({error})"))
            continue
        allow = headers.get("allow")
        if status == 405 and allow == refused.get("allow"):
            results.append((True, f"ok   {label}: 405 Allow: {allow}"))
        else:
            results.append((False, f"FAIL {label}: expected 405 with Allow: {refused.get('allow')}, got {status} Allow: {allow}"))
    return results


def probe_unrouted(base: str, path: str, item: dict, timeout: float):
    results = []
    for method in USUAL_METHODS:
        if method in item:
            continue
        label = f"{method.upper():7} {path}"
        try:
            status, _, data = request(base, method, concrete(path), b"" if method in ("post", "put", "patch") else None, None, timeout)
        except OSError as error:
            results.append((False, f"FAIL {label}: no answer ({error})"))
            continue
        if status == 404 and json_body(data) == ROUTER_NOT_FOUND:
            results.append((True, f"ok   {label}: the router's 404"))
        else:
            results.append((False, f"FAIL {label}: {status}, but the document has no such operation and no x-method-not-allowed"))
    return results


def live_checks(doc, base: str, timeout: float, verbose: bool) -> tuple[list[str], int, int]:
    lines, problems, probes = [], [], 0
    for path, method, _, operation in doc.operations():
        ok, line = probe_operation(doc, base, path, method, operation, timeout)
        probes += 1
        lines.append(line)
        if not ok:
            problems.append(line)
    refused_probes = 0
    for path, _, item in doc.path_items():
        for ok, line in probe_refused(base, path, item, timeout):
            refused_probes += 1
            lines.append(line)
            if not ok:
                problems.append(line)
    try:
        status, headers, _ = request(base, "TRACE", "/healthz", None, None, timeout)
        line = f"TRACE   /healthz: {status} Allow: {headers.get('allow')}"
        refused_probes += 1
        if status == 405:
            lines.append("ok   " + line)
        else:
            lines.append("FAIL " + line)
            problems.append("FAIL " + line + " (expected 405)")
    except OSError as error:
        problems.append(f"FAIL TRACE /healthz: no answer ({error})")
    if verbose:
        print("\n".join(lines))
    else:
        for line in lines:
            if line.startswith("FAIL"):
                print(line)
    return problems, probes, refused_probes
