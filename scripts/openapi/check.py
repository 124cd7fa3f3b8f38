#!/usr/bin/env python3
"""Checks docs/openapi.yaml, and optionally a live broker against it.

    python3 scripts/openapi/check.py                       # validate the document
    python3 scripts/openapi/check.py --base-url http://127.0.0.1:8080

1. Validates the document with openapi-spec-validator (OpenAPI 3.1), plus checks of its own:
   every `/oauth/...` path exists bare and under /v1, /v2, /v3 with the same definition, every
   path parameter is declared, every operation has responses.
2. With --base-url: sends every documented path + method (placeholders for path parameters, no
   credentials, an empty body) and requires an answer other than the router's 404: a 404 counts
   only when the operation documents one and the body is not the router's "Not found." (the SAML
   metadata of a broker with no SAML auth service, a data link that does not exist). The answer's
   status must be documented (or the operation has `default`), its media type must be one the
   response lists, and documented `Location`, `Allow`, `WWW-Authenticate`, `Retry-After` headers
   must be there, and a JSON body must match the documented schema. The methods of each path's `x-method-not-allowed` must answer 405 with that
   `Allow`; TRACE must answer 405.

Needs only python3 with venv and pip: on first use it creates .venv-openapi at the repository
root, installs openapi-spec-validator there, and runs itself again inside it. Exits non-zero on
any problem.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".venv-openapi"
REQUIREMENT = "openapi-spec-validator>=0.7,<1"
DEFAULT_SPEC = REPO / "docs" / "openapi.yaml"


def ensure_venv() -> None:
    """Re-executes this script with the venv's python, creating the venv first if needed."""
    if Path(sys.prefix).resolve() == VENV.resolve() or os.environ.get("OPENAPI_CHECK_NO_VENV"):
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV.relative_to(REPO)} …", file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    probe = [str(python), "-c", "import openapi_spec_validator, yaml"]
    if subprocess.call(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) != 0:
        print(f"installing {REQUIREMENT} into {VENV.relative_to(REPO)} …", file=sys.stderr)
        subprocess.check_call([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", REQUIREMENT])
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
VERSIONS = ["/v1", "/v2", "/v3"]
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


class Document:
    def __init__(self, spec: dict):
        self.spec = spec
        self._registry = None

    def schema_errors(self, schema: dict, instance) -> list[str]:
        """Validates `instance` against a schema of the document (internal refs resolved)."""
        from openapi_schema_validator import OAS31Validator
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        if self._registry is None:
            self._registry = Registry().with_resource(
                "urn:openapi-check", Resource.from_contents(self.spec, default_specification=DRAFT202012))
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        root = {"$ref": "urn:openapi-check" + ref} if ref and ref.startswith("#/") else schema
        validator = OAS31Validator(root, registry=self._registry)
        return [f"{'/'.join(map(str, error.absolute_path)) or 'body'}: {error.message}" for error in validator.iter_errors(instance)]

    def resolve(self, node):
        """Follows internal `$ref`s (`#/...`) until a non-reference object."""
        seen = set()
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/"):
                raise ValueError(f"cannot resolve {ref}")
            seen.add(ref)
            target = self.spec
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def path_items(self):
        for path, item in self.spec.get("paths", {}).items():
            yield path, item, self.resolve(item)

    def operations(self):
        for path, _, item in self.path_items():
            for method in METHODS:
                if method in item:
                    yield path, method, item, item[method]


def yaml_slips(node, where="#") -> list[str]:
    """Keys that only a YAML slip makes: an unquoted `a, b` or `a: b` inside a flow mapping
    turns the rest of a description into keys with no value."""
    problems = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{where}/{key}"
            if not isinstance(key, str):
                problems.append(f"{here}: key {key!r} is not a string (quote it)")
            elif value is None and (" " in key or key.endswith((".", ")"))):
                problems.append(f"{here}: looks like a split flow-mapping value (quote the text before it)")
            problems += yaml_slips(value, here)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            problems += yaml_slips(value, f"{where}/{index}")
    return problems


def unresolved_refs(doc: Document, node, where="#") -> list[str]:
    problems = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                doc.resolve({"$ref": ref})
            except (KeyError, TypeError, ValueError):
                problems.append(f"{where}: $ref {ref} does not resolve")
        for key, value in node.items():
            problems += unresolved_refs(doc, value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            problems += unresolved_refs(doc, value, f"{where}/{index}")
    return problems


def static_checks(doc: Document) -> list[str]:
    problems = yaml_slips(doc.spec) + unresolved_refs(doc, doc.spec)
    if problems:
        return problems
    paths = doc.spec.get("paths", {})
    for path, raw, item in doc.path_items():
        if path.startswith("/oauth/"):
            for version in VERSIONS:
                twin = paths.get(version + path)
                if twin is None:
                    problems.append(f"{path}: no {version}{path}")
                elif twin != raw:
                    problems.append(f"{version}{path}: differs from {path}")
        names = {p.strip("{}") for p in path.split("/") if p.startswith("{")}
        if not any(method in item for method in METHODS):
            problems.append(f"{path}: no operations")
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            params = [doc.resolve(p) for p in item.get("parameters", []) + operation.get("parameters", [])]
            declared = {p["name"] for p in params if p.get("in") == "path"}
            if declared != names:
                problems.append(f"{method.upper()} {path}: path parameters {sorted(declared)} != {sorted(names)}")
            if not operation.get("responses"):
                problems.append(f"{method.upper()} {path}: no responses")
            for code in operation.get("responses", {}):
                if not isinstance(code, str):
                    problems.append(f"{method.upper()} {path}: response key {code!r} is not a string")
        refused = item.get("x-method-not-allowed")
        if refused:
            for method in refused.get("methods", []):
                if method in item:
                    problems.append(f"{path}: {method.upper()} is both an operation and x-method-not-allowed")
    return problems


def validate(spec: dict, spec_path: Path) -> list[str]:
    from openapi_spec_validator import OpenAPIV31SpecValidator

    validator = OpenAPIV31SpecValidator(spec, base_uri=spec_path.resolve().as_uri())
    problems = []
    try:
        for error in validator.iter_errors():
            where = "/".join(str(part) for part in getattr(error, "absolute_path", [])) or "(document)"
            problems.append(f"openapi-spec-validator: {where}: {error.message}")
    except Exception as error:  # the validator raises on some faults (an unresolvable $ref) instead of reporting them
        problems.append(f"openapi-spec-validator: {type(error).__name__}: {str(error).split(' within ')[0][:300]}")
    return problems


# ------------------------------------------------------------------ live checks

def request(base: str, method: str, path: str, body: bytes | None, content_type: str | None, timeout: float):
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(base)
    connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(parts.hostname, parts.port, timeout=timeout)
    headers = {"Connection": "close"}
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


def probe_operation(doc: Document, base: str, path: str, method: str, operation: dict, timeout: float):
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
    refused = item.get("x-method-not-allowed")
    if not refused:
        return []
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


def live_checks(doc: Document, base: str, timeout: float, verbose: bool) -> tuple[list[str], int, int]:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="the OpenAPI document (default docs/openapi.yaml)")
    parser.add_argument("--base-url", help="a running broker, e.g. http://127.0.0.1:8080")
    parser.add_argument("--timeout", type=float, default=10, help="seconds per request (default 10)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only failures of the live check")
    args = parser.parse_args()

    import yaml

    spec = yaml.safe_load(args.spec.read_text(encoding="utf-8"))
    doc = Document(spec)
    problems = static_checks(doc)
    problems += validate(spec, args.spec)
    operations = list(doc.operations())
    paths = list(doc.spec.get("paths", {}))
    print(f"{args.spec.relative_to(REPO) if args.spec.resolve().is_relative_to(REPO) else args.spec}: "
          f"OpenAPI {spec.get('openapi')}, {len(paths)} paths, {len(operations)} operations")
    by_method: dict[str, int] = {}
    for _, method, _, _ in operations:
        by_method[method.upper()] = by_method.get(method.upper(), 0) + 1
    print("  operations by method: " + ", ".join(f"{m} {n}" for m, n in sorted(by_method.items())))
    for problem in problems:
        print("PROBLEM " + problem)
    print(f"validation: {'ok' if not problems else f'{len(problems)} problem(s)'}")

    if args.base_url:
        live_problems, probes, refused = live_checks(doc, args.base_url, args.timeout, verbose=not args.quiet)
        print(f"live check against {args.base_url}: {probes} operations and {refused} refused-method probes, "
              f"{len(live_problems)} problem(s)")
        problems += live_problems
    print("RESULT: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    ensure_venv()
    sys.exit(main())
