"""Glewlwyd 2.7 (Debian package `glewlwyd`, an OAuth 2 / OpenID Connect server in C) as the peer
of the benchmark's side-by-side table (docs/benchmarks.md, "Side by side with Glewlwyd"): started
by glewlwyd-start.sh on 127.0.0.1 with its SQLite backend, configured through its admin API
(`provision`, which the start script calls), and the request of each load, as keyword arguments
of load.run_wrk. Standard library only.

    server = glewlwyd_peer.start(directory, pbkdf2_iterations=10_000)   # {"PORT": ..., "ISSUER": ...}
    load.run_wrk(name, port=server["PORT"], ..., **glewlwyd_peer.discovery_args())
    glewlwyd_peer.stop(directory)

By hand: `scripts/bench/glewlwyd-start.sh DIR [PORT]`, `glewlwyd_peer.py check PORT`,
`scripts/bench/glewlwyd-stop.sh DIR`."""

import base64
import http.client
import json
import os
import shutil
import subprocess
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = "oidc"  # the OIDC plugin instance: its endpoints are under /api/oidc/
SCOPE = "bench"
# The password grant goes round these users (the broker's side has the same ones): the broker lets
# at most 5 attempts for one username be in flight, so 32 connections need more than one user.
USERNAMES = [f"user{number:02d}" for number in range(1, 65)]
PASSWORD = "bench-password"
CLIENT_ID, CLIENT_SECRET = "bench", "bench-secret-not-for-production"
ADMIN_USERNAME, ADMIN_PASSWORD = "admin", "password"  # created by the package's SQLite schema
ACCESS_TTL, REFRESH_TTL, CODE_TTL = 3600, 86400, 600


def installed():
    return shutil.which("glewlwyd") is not None or os.path.exists("/usr/bin/glewlwyd")


def version():
    """The installed package's version, e.g. 2.7.5-3+deb12u1 (None when dpkg does not know it)."""
    result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "glewlwyd"], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    return result.stdout.strip() or None


def start(directory, pbkdf2_iterations=None, database=None):
    """Runs glewlwyd-start.sh in `directory` (a free port); returns its KEY=VALUE lines, PORT an int.
    `pbkdf2_iterations`: the PBKDF2 rounds of the users' password hashes (Glewlwyd's default
    150,000); `database`: the SQLite file (default `directory`/glewlwyd.sqlite3)."""
    env = dict(os.environ)
    if pbkdf2_iterations:
        env["GLEWLWYD_PBKDF2_ITERATIONS"] = str(pbkdf2_iterations)
    if database:
        env["GLEWLWYD_DATABASE"] = database
    started = subprocess.run([os.path.join(HERE, "glewlwyd-start.sh"), directory], env=env, capture_output=True,
                             text=True)
    if started.returncode != 0:
        raise SystemExit(f"glewlwyd-start.sh failed ({started.returncode}):\n{started.stderr}")
    values = dict(line.split("=", 1) for line in started.stdout.splitlines() if "=" in line)
    values["PORT"] = int(values["PORT"])
    return values


def stop(directory):
    subprocess.run([os.path.join(HERE, "glewlwyd-stop.sh"), directory], check=False)


# ---------------------------------------------------------------- the loads (load.run_wrk arguments)

def _client_form():
    return {"Authorization": "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode(),
            "Content-Type": "application/x-www-form-urlencoded"}


def password_grant_args():
    """With pool=USERNAMES, cycle=True: `{}` in the body is the username."""
    return {"method": "POST", "path": f"/api/{PLUGIN}/token", "headers": _client_form(),
            "body": f"grant_type=password&username={{}}&password={urllib.parse.quote(PASSWORD)}&scope={SCOPE}"}


def client_credentials_args():
    return {"method": "POST", "path": f"/api/{PLUGIN}/token", "headers": _client_form(),
            "body": f"grant_type=client_credentials&scope={SCOPE}"}


def introspection_args(token):
    """RFC 7662, authenticated as the client the token was issued to (with
    `introspection-revocation-allow-target-client` a client may introspect its own tokens)."""
    return {"method": "POST", "path": f"/api/{PLUGIN}/introspect", "headers": _client_form(),
            "body": urllib.parse.urlencode({"token": token, "token_type_hint": "access_token"})}


def discovery_args():
    return {"method": "GET", "path": f"/api/{PLUGIN}/.well-known/openid-configuration"}


# ---------------------------------------------------------------- single requests

def _request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read(), response.headers.get_all("Set-Cookie") or []
    finally:
        connection.close()


def send(port, arguments, value=None):
    """One request of a load (`value` fills the `{}` of a pooled one); returns (status, JSON body)."""
    body = arguments.get("body", "")
    if value is not None:
        body = body.replace("{}", urllib.parse.quote(value))
    status, data, _ = _request(port, arguments["method"], arguments["path"], body or None, arguments.get("headers"))
    try:
        return status, json.loads(data) if data else None
    except ValueError:
        return status, data[:200]


def access_token(port):
    """An access token (RS256 JWT) of the password grant, for the introspection load."""
    status, body = send(port, password_grant_args(), USERNAMES[0])
    if status != 200:
        raise SystemExit(f"glewlwyd password grant failed: {status} {body}")
    return body["access_token"]


def check(port):
    """One request of each load; exits with the answer when one is not a success."""
    token = access_token(port)
    for name, arguments, value in (("password grant", password_grant_args(), USERNAMES[-1]),
                                   ("client_credentials", client_credentials_args(), None),
                                   ("introspection", introspection_args(token), None),
                                   ("discovery", discovery_args(), None)):
        status, body = send(port, arguments, value)
        if status != 200 or (name == "introspection" and body.get("active") is not True):
            raise SystemExit(f"glewlwyd {name}: {status} {body}")


# ---------------------------------------------------------------- configuration

def admin_api(port, fail=SystemExit):
    """`call(method, path, document=None)` on Glewlwyd's admin API, signed in as the schema's admin
    (a cookie session); any answer but 200 is `fail(message)`. Returns the decoded JSON answer."""
    status, data, cookies = _request(port, "POST", "/api/auth/", json.dumps(
        {"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD}), {"Content-Type": "application/json"})
    if status != 200:
        fail(f"glewlwyd admin login failed: {status} {data[:200]!r}")
    admin = {"Cookie": "; ".join(cookie.split(";", 1)[0] for cookie in cookies), "Content-Type": "application/json"}

    def call(method, path, document=None):
        status, data, _ = _request(port, method, path, None if document is None else json.dumps(document), admin)
        if status != 200:
            fail(f"glewlwyd {method} {path} failed: {status} {data[:500]!r}")
        return json.loads(data) if data else None
    return call


def update_plugin(call, parameters):
    """Changes parameters of the OIDC plugin instance and makes the running server take them."""
    plugin = call("GET", f"/api/mod/plugin/{PLUGIN}")
    plugin["parameters"].update(parameters)
    call("PUT", f"/api/mod/plugin/{PLUGIN}", {key: plugin[key] for key in ("module", "name", "display_name", "enabled", "parameters")})
    call("PUT", f"/api/mod/plugin/{PLUGIN}/reset")


def provision(directory, port):
    """Through the admin API (a cookie session of the schema's admin): the PBKDF2 rounds of the
    database user module (GLEWLWYD_PBKDF2_ITERATIONS, when set), scope `bench` (no password
    required), USERNAMES with PASSWORD, the confidential client `bench` (plain client secret;
    password, client_credentials and refresh_token grants) and the OIDC plugin instance `oidc`
    with the RS256 key glewlwyd-start.sh made in `directory`."""
    call = admin_api(port)
    iterations = os.environ.get("GLEWLWYD_PBKDF2_ITERATIONS")
    if iterations:  # before the users exist: each hash keeps the count it was made with
        module = call("GET", "/api/mod/user/database")
        module["parameters"]["pbkdf2-iterations"] = int(iterations)
        call("PUT", "/api/mod/user/database",
             {key: module[key] for key in ("display_name", "parameters", "order_rank", "readonly")})
        call("PUT", "/api/mod/user/database/reset")  # the running instance takes the new parameters
    call("POST", "/api/scope/", {"name": SCOPE, "display_name": "Benchmark", "description": "Benchmark scope",
                                 "password_required": False, "scheme": {}})
    for username in USERNAMES:
        call("POST", "/api/user/", {"username": username, "name": username, "password": PASSWORD, "enabled": True,
                                    "scope": [SCOPE, "openid"]})
    call("POST", "/api/client/", {
        "client_id": CLIENT_ID, "name": "Benchmark client", "enabled": True, "confidential": True,
        "client_secret": CLIENT_SECRET, "scope": [SCOPE], "redirect_uri": ["http://localhost:3000/callback"],
        "authorization_type": ["password", "client_credentials", "refresh_token"],
        # Without it every token request of a confidential client fails (403 / 500).
        "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"]})
    with open(os.path.join(directory, "oidc.key")) as handle:
        key = handle.read()
    with open(os.path.join(directory, "oidc.pub")) as handle:
        public = handle.read()
    call("POST", "/api/mod/plugin/", {"module": "oidc", "name": PLUGIN, "display_name": "OpenID Connect",
                                      "enabled": True, "parameters": plugin_parameters(port, key, public)})


def plugin_parameters(port, key, public):
    return {
        "iss": f"http://127.0.0.1:{port}/api/{PLUGIN}",
        "jwt-type": "rsa", "jwt-key-size": "256", "key": key, "cert": public,  # RS256, as the broker signs
        "access-token-duration": ACCESS_TTL, "refresh-token-duration": REFRESH_TTL, "code-duration": CODE_TTL,
        "refresh-token-rolling": True,
        "allow-non-oidc": True,  # password and client_credentials without the openid scope
        "auth-type-code-enabled": True, "auth-type-password-enabled": True, "auth-type-client-enabled": True,
        "auth-type-refresh-enabled": True,
        "introspection-revocation-allowed": True, "introspection-revocation-allow-target-client": True,
        "subject-type": "public", "allowed-scope": ["openid", SCOPE],  # scopes_supported in discovery
    }


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "provision":
        provision(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(int(sys.argv[2]))
    else:
        raise SystemExit("usage: glewlwyd_peer.py provision DIR PORT | check PORT")
