"""The probes of check.py that need a signed-in user (`--client ID:SECRET --user NAME:PASSWORD`).

The anonymous probes reach only the error answers of the token endpoint and userinfo; the
documented 200 answers (their JSON schemas) are checked here: a password grant with every
standard scope, then userinfo by GET (Bearer) and by POST (form `access_token`). A claim the broker
returns that the schema does not allow (`additionalProperties: false`), or a status the operation
does not document, is a problem.
"""
from __future__ import annotations

import base64
import json
from urllib.parse import quote, urlencode

SCOPE = "openid email profile groups"


def signed_in_checks(doc, base: str, client: str, user: str, timeout: float, send) -> tuple[list[str], list[str]]:
    """(lines, problems). `send` is check.py's `request` function."""
    client_id, _, secret = client.partition(":")
    username, _, password = user.partition(":")
    basic = base64.b64encode(f"{quote(client_id, safe='')}:{quote(secret, safe='')}".encode()).decode()
    lines, problems = [], []

    def check(label: str, path: str, method: str, status: int, data: bytes):
        operation = doc.resolve(doc.spec["paths"][path])[method]
        documented = operation.get("responses", {}).get(str(status))
        if documented is None:
            line = f"FAIL {label}: status {status} not documented ({data[:200]!r})"
        else:
            schema = doc.resolve(documented).get("content", {}).get("application/json", {}).get("schema")
            try:
                body = json.loads(data)
            except ValueError:
                body = None
            errors = ["body is not JSON"] if body is None else (doc.schema_errors(schema, body) if schema else [])
            line = (f"FAIL {label}: {status}; body does not match the schema: " + "; ".join(errors[:3])) if errors \
                else f"ok   {label}: {status} matches the documented schema"
        lines.append(line)
        if line.startswith("FAIL"):
            problems.append(line)

    form = urlencode({"grant_type": "password", "username": username, "password": password, "scope": SCOPE}).encode()
    status, _, data = send(base, "post", "/oauth/token", form, "application/x-www-form-urlencoded", timeout,
                           {"Authorization": f"Basic {basic}"})
    check("POST    /oauth/token (password grant, signed in)", "/oauth/token", "post", status, data)
    if status != 200:
        return lines, problems
    token = json.loads(data)["access_token"]
    status, _, data = send(base, "get", "/oauth/userinfo", None, None, timeout, {"Authorization": f"Bearer {token}"})
    check("GET     /oauth/userinfo (signed in)", "/oauth/userinfo", "get", status, data)
    status, _, data = send(base, "post", "/oauth/userinfo", urlencode({"access_token": token}).encode(),
                           "application/x-www-form-urlencoded", timeout)
    check("POST    /oauth/userinfo (signed in)", "/oauth/userinfo", "post", status, data)
    return lines, problems
