"""Structural checks of docs/openapi.yaml that openapi-spec-validator does not make (used by check.py).

- `refusal_coverage`: every path that lists `x-method-not-allowed` accounts for every usual method —
  an operation, or a method the router refuses with 405 — so a method the broker refuses cannot be
  left out of the document, nor one the document refuses be served (the live check probes each).
- `shared_objects`: no operation or `responses` object is the same object (a YAML alias) under paths
  with different path parameters. Tools that add links to a response (schemathesis infers them for
  its stateful phase) add them to every operation sharing it, and a link that forwards
  `$request.path.<name>` is then invalid where `<name>` does not exist ("Invalid OpenAPI Links
  Definition").
- `link_problems`: every `links` entry names an operation that exists (`operationId` or
  `operationRef`), its parameters are the target's, and its `$request.path|query|header.<name>`
  expressions name parameters of the source operation.
"""
from __future__ import annotations

import re

# The methods the router answers with 405 on a path that refuses others (`refuseOtherMethods`).
USUAL_METHODS = ["get", "post", "put", "delete", "patch", "options"]
OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
REQUEST_EXPRESSION = re.compile(r"\$request\.(path|query|header)\.([A-Za-z0-9_.~-]+)")


def path_parameter_names(path: str) -> frozenset[str]:
    return frozenset(segment[1:-1] for segment in path.split("/") if segment.startswith("{") and segment.endswith("}"))


def refusal_coverage(doc) -> list[str]:
    problems = []
    for path, _, item in doc.path_items():
        refused = item.get("x-method-not-allowed")
        if not refused:
            continue
        listed = refused.get("methods", [])
        missing = [m.upper() for m in USUAL_METHODS if m not in item and m not in listed]
        if missing:
            problems.append(f"{path}: x-method-not-allowed does not list {', '.join(missing)} "
                            "(neither an operation nor refused: the router answers it with 405)")
    return problems


def shared_objects(doc) -> list[str]:
    """Objects reachable from paths with different path parameters, by identity."""
    seen: dict[int, tuple[str, str, frozenset[str]]] = {}
    problems = []
    for path, _, item in doc.path_items():
        names = path_parameter_names(path)
        for method in OPERATION_METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            for what, node in (("operation", operation), ("responses", operation.get("responses"))):
                if not isinstance(node, dict):
                    continue
                first = seen.setdefault(id(node), (path, method, names))
                if first[2] != names:
                    problems.append(f"{method.upper()} {path}: its {what} object is also {first[1].upper()} {first[0]}'s "
                                    "(a YAML alias across paths with different path parameters: links a tool adds for "
                                    "one would name parameters the other lacks; write a separate copy)")
    return problems


def operation_parameters(doc, item: dict, operation: dict) -> dict[str, set[str]]:
    """Parameter names of an operation by location (`path`, `query`, `header`, `cookie`)."""
    found: dict[str, set[str]] = {}
    for parameter in item.get("parameters", []) + operation.get("parameters", []):
        parameter = doc.resolve(parameter)
        found.setdefault(parameter.get("in", ""), set()).add(parameter.get("name", ""))
    return found


def link_problems(doc) -> list[str]:
    by_id: dict[str, tuple[dict, dict]] = {}
    for _, _, item, operation in doc.operations():
        if "operationId" in operation:
            by_id[operation["operationId"]] = (item, operation)
    problems = []
    for path, method, item, operation in doc.operations():
        source = operation_parameters(doc, item, operation)
        for status, response in operation.get("responses", {}).items():
            for name, link in doc.resolve(response).get("links", {}).items():
                link = doc.resolve(link)
                where = f"{method.upper()} {path} [{status}] link {name}"
                target = by_id.get(link.get("operationId", ""))
                if target is None and "operationRef" in link:
                    try:
                        ref = link["operationRef"]
                        resolved_item = doc.resolve({"$ref": ref.rsplit("/", 1)[0]})
                        target = (resolved_item, resolved_item[ref.rsplit("/", 1)[1]])
                    except (KeyError, TypeError, ValueError):
                        target = None
                if target is None:
                    problems.append(f"{where}: names no operation of this document")
                    continue
                wanted = operation_parameters(doc, *target)
                known = set().union(*wanted.values()) if wanted else set()
                for parameter, expression in link.get("parameters", {}).items():
                    bare = parameter.split(".", 1)[-1]
                    if bare not in known:
                        problems.append(f"{where}: the target has no parameter '{parameter}'")
                    for location, referenced in REQUEST_EXPRESSION.findall(str(expression)):
                        if referenced not in source.get(location, set()):
                            problems.append(f"{where}: {expression} names no {location} parameter of the source")
    return problems


def structure_problems(doc) -> list[str]:
    return refusal_coverage(doc) + shared_objects(doc) + link_problems(doc)
