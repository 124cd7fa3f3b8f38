"""Starts the processes a benchmark run needs: the sample AuthLink and the broker on a temporary
console-config, and talks to the broker over plain HTTP (standard library only)."""

import base64
import hashlib
import http.client
import html
import json
import re
import os
import socket
import subprocess
import time
import urllib.parse

APP_KEY = "kid_bench"
APP_SECRET = "bench-secret-not-for-production"
REDIRECT_URI = "http://localhost:3000/callback"
# Registration of app instances (the client_credentials load): the environment's initial access
# token, the software_id whose statements the run signs, and the instances' redirect URI.
INITIAL_ACCESS_TOKEN = "bench-initial-access-token"
SOFTWARE_ID = "BenchApp"
INSTANCE_REDIRECT_URI = "com.example.bench:/oauth2redirect"


_ports_given = set()


def free_port():
    """A loopback port nothing listens on, never one this process was given before: two calls
    in a row can otherwise get the same port from the kernel (neither is bound yet), and then the
    broker cannot bind while its health check is answered by the AuthLink on that port."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in _ports_given:
            _ports_given.add(port)
            return port


def write_config(directory, broker_port, authlink_port, ldap, static_users=None, statement_jwks=None,
                 extra_services=(), data_links=(), signing=None):
    """A console-config with one environment: AuthLink (JWT and opaque tokens), LDAP when a slapd
    is given, and data links to the broker's own /healthz ("self") and to the AuthLink ("authlink",
    a backend in a process of its own); with `static_users` (static_user()) a `static` auth service
    of them, with `statement_jwks` (statement_key()) registration of app instances of SOFTWARE_ID,
    `extra_services` and `data_links` appended, and `signing` the token algorithm (RS256 when None)."""
    os.makedirs(os.path.join(directory, "config", "secrets"), exist_ok=True)
    with open(os.path.join(directory, "config", "secrets", "app"), "w") as handle:
        handle.write(APP_SECRET)
    services = [auth_service("authlink", authlink_port, "jwt"), auth_service("authlink-opaque", authlink_port, "opaque")]
    if ldap:
        services.append({
            "id": "ldap", "name": "LDAP", "redirectUri": [REDIRECT_URI], "grantTtl": 600, "tokenTtl": 3600,
            "refresh": True, "refreshTtl": 86400,
            "provider": {"type": "ldap", "remoteService": ldap["url"], "authentication": ldap["authentication"],
                         "options": ldap["options"]},
        })
    services += list(extra_services)
    if static_users:
        services.append({"id": "static", "name": "static", "redirectUri": [REDIRECT_URI], "grantTtl": 600,
                         "tokenTtl": 3600, "refresh": True, "refreshTtl": 86400,
                         "provider": {"type": "static", "options": {"users": static_users}}})
    environment = {
        "appKey": APP_KEY, "appSecret": "${file:secrets/app}", "name": "Bench",
        "defaultAuthService": "authlink", "authServices": services,
        "dataLinks": [{"name": "self", "url": f"http://127.0.0.1:{broker_port}"},
                      {"name": "authlink", "url": f"http://127.0.0.1:{authlink_port}"}] + list(data_links),
    }
    if statement_jwks:
        environment["registration"] = {"initialAccessTokens": [INITIAL_ACCESS_TOKEN],
                                       "softwareStatements": {SOFTWARE_ID: {"jwks": statement_jwks}}}
    config = {
        # Every request comes from 127.0.0.1: the per-address limits on pre-sign-in requests would
        # hold the benchmark back, not measure the broker.
        "server": {"issuer": f"http://127.0.0.1:{broker_port}",
                   "rateLimits": {"authorizationsPerMinute": 100_000_000, "registrationsPerMinute": 100_000_000,
                                  "userCodesPerMinute": 100_000_000}},
        "storage": "sqlite:" + os.path.join(directory, "broker.sqlite"),
        "environments": [environment],
    }
    if signing:
        config["signing"] = {"algorithm": signing}
    # JSON is YAML: no YAML library needed here.
    with open(os.path.join(directory, "config", "bench.yaml"), "w") as handle:
        json.dump(config, handle, indent=1)
    return os.path.join(directory, "config")


# The sample AuthLink's users for sign-ins under load: the login throttle lets 5 attempts of one
# username be in flight, so concurrent sign-ins go round many users.
BENCH_USERS = [f"user{index:02d}" for index in range(1, 65)]
BENCH_PASSWORD = "bench-user-pw"


def authlink_users_file(directory, repository_users, extra_usernames=()):
    """The sample AuthLink's own users plus BENCH_USERS and `extra_usernames` (password
    BENCH_PASSWORD), as a users file for `authlink-sample --users`; returns its path."""
    with open(repository_users) as handle:
        document = json.load(handle)
    document["users"] += [{"username": name, "password": BENCH_PASSWORD} for name in BENCH_USERS + list(extra_usernames)]
    path = os.path.join(directory, "authlink-users.json")
    with open(path, "w") as handle:
        json.dump(document, handle)
    return path


def auth_service(identifier, authlink_port, token_format):
    return {
        "id": identifier, "name": identifier, "redirectUri": [REDIRECT_URI], "grantTtl": 600, "tokenTtl": 3600,
        "refresh": True, "refreshTtl": 86400, "tokenFormat": token_format, "qrLogin": {"enabled": True, "ttl": 3600},
        "deviceGrant": {"enabled": True, "lifetime": 3600}, "nativeSSO": True,
        "tokenExchange": {"dataLinks": ["authlink"]},
        "provider": {"type": "custom", "remoteService": f"http://127.0.0.1:{authlink_port}/login",
                     "options": {"refreshUrl": f"http://127.0.0.1:{authlink_port}/refresh"}},
    }


def static_user(username, password, iterations):
    """A user of the `static` connector: its passwordHash a PBKDF2-SHA256 PHC string (16-byte salt,
    32-byte hash), as `idconnect hash-password --iterations N` makes."""
    salt = os.urandom(16)
    derived = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations, 32)
    phc = f"$pbkdf2-sha256$i={iterations}${_b64(salt)}${_b64(derived)}"
    return {"username": username, "passwordHash": phc}


def statement_key(directory):
    """An RSA key for signing software statements: (PEM path, JWK set as JSON text)."""
    key = os.path.join(directory, "statement.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    modulus = subprocess.run(["openssl", "rsa", "-in", key, "-noout", "-modulus"], check=True, capture_output=True,
                             text=True).stdout.strip().split("=", 1)[1]
    jwk = {"kty": "RSA", "alg": "RS256", "use": "sig", "n": _b64url(bytes.fromhex(modulus)), "e": "AQAB"}
    return key, json.dumps({"keys": [jwk]})


def _b64(data):
    """Standard base64 without padding (PHC strings)."""
    return base64.b64encode(data).rstrip(b"=").decode()


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def register_instance(port, key, username, password):
    """A mobile app instance (docs/protocol.md, "Mobile app instances"): registered with a software
    statement signed by `key`, then bound to `username` of the default auth service by the code
    flow with PKCE through the automated grant, redeemed with the instance's own secret (which
    client_credentials needs). Returns (client_id, client_secret)."""
    header = _b64url(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({
        "iss": "https://vendor.example.com", "software_id": SOFTWARE_ID, "exp": int(time.time()) + 3600,
        "redirect_uris": [INSTANCE_REDIRECT_URI], "scope": "openid profile",
        "grant_types": ["authorization_code", "refresh_token", "client_credentials"]}).encode())
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=f"{header}.{payload}".encode(),
                               check=True, capture_output=True).stdout
    status, _, data = request(port, "POST", "/oauth/register",
                              headers={"Authorization": "Bearer " + INITIAL_ACCESS_TOKEN},
                              json_body={"software_id": SOFTWARE_ID, "device_type": "android",
                                         "software_statement": f"{header}.{payload}.{_b64url(signature)}",
                                         "redirect_uris": [INSTANCE_REDIRECT_URI]})
    if status != 201:
        raise SystemExit(f"instance registration failed: {status} {data[:200]!r}")
    registered = json.loads(data)
    client, secret = registered["client_id"], registered["client_secret"]
    verifier = _b64url(os.urandom(32))
    flow = {"client_id": client, "redirect_uri": INSTANCE_REDIRECT_URI, "response_type": "code",
            "scope": "openid profile", "code_challenge": _b64url(hashlib.sha256(verifier.encode()).digest()),
            "code_challenge_method": "S256"}
    status, _, data = request(port, "POST", "/oauth/auth", form=flow)
    if status != 200:
        raise SystemExit(f"instance sign-in start failed: {status} {data[:200]!r}")
    path = urllib.parse.urlparse(json.loads(data)["temp_login_uri"]).path
    status, headers, data = request(port, "POST", path, form={**flow, "username": username, "password": password})
    location = headers.get("Location") or headers.get("location") or ""
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query).get("code")
    if status != 302 or not code:
        raise SystemExit(f"instance sign-in failed: {status} {location} {data[:200]!r}")
    status, _, data = request(port, "POST", "/oauth/token", headers={"Authorization": basic_header_for(client, secret)},
                              form={"grant_type": "authorization_code", "code": code[0], "client_id": client,
                                    "redirect_uri": INSTANCE_REDIRECT_URI, "code_verifier": verifier})
    if status != 200:
        raise SystemExit(f"instance code exchange failed: {status} {data[:200]!r}")
    return client, secret


def start(arguments, log_path, env=None):
    log = open(log_path, "w")
    return subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def wait_until_up(port, path, process, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"process on port {port} exited with {process.returncode}")
        try:
            status, _, _ = request(port, "GET", path)
            if status < 500:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"nothing answered on port {port} within {seconds} s")


def request(port, method, path, form=None, headers=None, json_body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    all_headers = dict(headers or {})
    body = None
    if form is not None:
        body = urllib.parse.urlencode(form)
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif json_body is not None:
        body = json.dumps(json_body)
        all_headers["Content-Type"] = "application/json"
    connection.request(method, path, body=body, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), data


def basic_header():
    return basic_header_for(APP_KEY, APP_SECRET)


def basic_header_for(client, secret):
    return "Basic " + base64.b64encode(f"{client}:{secret}".encode()).decode()


def client_id(service):
    return APP_KEY if service == "authlink" else f"{APP_KEY}.{service}"


def password_grant(port, service, username, password, scope=None):
    form = {"grant_type": "password", "username": username, "password": password, "client_id": client_id(service)}
    if scope:
        form["scope"] = scope
    status, _, data = request(port, "POST", "/oauth/token", headers={"Authorization": basic_header()}, form=form)
    if status != 200:
        raise SystemExit(f"password grant for {service} failed: {status} {data[:200]!r}")
    return json.loads(data)


def temp_login_path(port, service):
    status, _, data = request(port, "POST", "/oauth/auth", form={
        "client_id": client_id(service), "redirect_uri": REDIRECT_URI, "response_type": "code"})
    if status != 200:
        raise SystemExit(f"automated grant start failed: {status} {data[:200]!r}")
    return urllib.parse.urlparse(json.loads(data)["temp_login_uri"]).path


def qr_code(port, service):
    """A QR sign-in shown by a browser: the login page, its binding cookie, the code of its QR page."""
    query = urllib.parse.urlencode({"client_id": client_id(service), "redirect_uri": REDIRECT_URI, "response_type": "code"})
    status, headers, page = request(port, "GET", "/oauth/auth?" + query)
    page = page.decode()
    cookie = (headers.get("Set-Cookie") or headers.get("set-cookie") or "").split(";")[0]
    start = re.search(r'id="qr-start" href="([^"]+)"', page)
    if status != 200 or not cookie or not start:
        raise SystemExit(f"login page without a QR link: {status} {page[:200]!r}")
    path = urllib.parse.urlparse(html.unescape(start.group(1))).path
    status, _, page = request(port, "GET", path, headers={"Cookie": cookie})
    page = page.decode()
    code = re.search(r"code=([0-9a-f-]{36})", page)
    if status != 200 or not code:
        raise SystemExit(f"QR page without a code: {status} {page[:200]!r}")
    return code.group(1)


def authorization_code(port, service, username, password):
    path = temp_login_path(port, service)
    status, headers, data = request(port, "POST", path, form={
        "client_id": client_id(service), "redirect_uri": REDIRECT_URI, "response_type": "code",
        "username": username, "password": password})
    location = headers.get("Location") or headers.get("location") or ""
    query = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)
    if status != 302 or "code" not in query:
        raise SystemExit(f"sign-in for a code failed: {status} {location} {data[:200]!r}")
    return query["code"][0]


def peak_rss_mb(pid):
    """VmHWM: the most resident memory the process ever had."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0
