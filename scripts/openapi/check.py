#!/usr/bin/env python3
"""Checks docs/openapi.yaml, and optionally a live broker against it.

    python3 scripts/openapi/check.py                       # validate the document
    python3 scripts/openapi/check.py --base-url http://127.0.0.1:8080
    python3 scripts/openapi/check.py --base-url http://127.0.0.1:8080 --client kid_demo:SECRET --user alice:wonderland

The parts: structure_checks.py, live_checks.py, signed_in.py (beside this file).

1. Validates the document with openapi-spec-validator (OpenAPI 3.1), plus checks of its own:
   every `/oauth/...` path exists bare and under /v1, /v2, /v3 with the same definition, every
   path parameter is declared, every operation has responses, a path's `x-method-not-allowed`
   covers every usual method (GET, POST, PUT, DELETE, PATCH, OPTIONS) the path has no operation
   for, no operation or responses object is shared (a YAML alias) between paths with different
   path parameters (links inferred for one — schemathesis's stateful phase — would name
   parameters the other lacks: "Invalid OpenAPI Links Definition"), and every `links` entry
   names an existing operation and parameters both ends have.
2. With --base-url: sends every documented path + method (placeholders for path parameters, no
   credentials, an empty body) and requires an answer other than the router's 404: a 404 counts
   only when the operation documents one and the body is not the router's "Not found." (the SAML
   metadata of a broker with no SAML auth service, a data link that does not exist). The answer's
   status must be documented (or the operation has `default`), its media type must be one the
   response lists, and documented `Location`, `Allow`, `WWW-Authenticate`, `Retry-After` headers
   must be there, and a JSON body must match the documented schema. The methods of each path's
   `x-method-not-allowed` must answer 405 with that `Allow`; on a path without it, every usual method it has no operation for must answer the
   router's 404 (so the broker serves no method the document does not name); TRACE must answer 405.
3. With --client ID:SECRET and --user NAME:PASSWORD as well (a password auth service, such as
   the shipped demo's `kid_demo` and alice): a password grant with every standard scope, then
   userinfo by GET and POST; each 200 answer must match its documented schema (the answers the
   anonymous probes never reach).

Needs only python3 with venv and pip: on first use it creates .venv-openapi at the repository
root, installs openapi-spec-validator there, and runs itself again inside it. Exits non-zero on
any problem.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from live_checks import live_checks, request
from signed_in import signed_in_checks
from structure_checks import structure_problems

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
    return problems + structure_problems(doc)


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="the OpenAPI document (default docs/openapi.yaml)")
    parser.add_argument("--base-url", help="a running broker, e.g. http://127.0.0.1:8080")
    parser.add_argument("--timeout", type=float, default=10, help="seconds per request (default 10)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only failures of the live check")
    parser.add_argument("--client", help="with --base-url and --user: ID:SECRET of a client with a password auth service")
    parser.add_argument("--user", help="NAME:PASSWORD of a user of that auth service (signed-in probes)")
    args = parser.parse_args()
    if (args.client is None) != (args.user is None) or (args.client and not args.base_url):
        parser.error("--client and --user go together, with --base-url")

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
    if args.client:
        lines, signed_problems = signed_in_checks(doc, args.base_url, args.client, args.user, args.timeout, request)
        shown = lines if not args.quiet else signed_problems
        if shown:
            print("\n".join(shown))
        print(f"signed-in check: {len(lines)} probes, {len(signed_problems)} problem(s)")
        problems += signed_problems
    print("RESULT: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    ensure_venv()
    sys.exit(main())
