"""Helpers of scripts/multi-instance-test.py: HTTP calls, the AuthLink stand-in that counts its
/refresh calls, broker instances as processes, and the OAuth flows the checks use; and, for the
end-to-end checks of one feature (device-grant-check.py, dpop-check.py), a config directory with
static users and the storage of a run."""
import base64
import http.client
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
# A free loopback port, never one handed out before in this process (instances are made before any binds).
from broker import free_port  # noqa: E402

def write_static_config(binary, work, name, make_document):
    """A config directory with a fresh vault key (in IDCONNECT_VAULT_KEY) and one environments file,
    `make_document(password_hash)`: the document, whose static users use that hash of "pw"."""
    digest = subprocess.run([binary, "hash-password"], input="pw\n", capture_output=True, text=True, check=True)
    password_hash = digest.stdout.strip().splitlines()[-1]
    config = os.path.join(work, "config")
    os.makedirs(os.path.join(config, "environments"))
    os.environ["IDCONNECT_VAULT_KEY"] = base64.b64encode(os.urandom(32)).decode()
    with open(os.path.join(config, "server.yaml"), "w") as handle:
        handle.write("vault:\n  keys:\n    - id: v1\n      secret: ${env:IDCONNECT_VAULT_KEY}\n")
    with open(os.path.join(config, "environments", f"{name}.yaml"), "w") as handle:
        json.dump(make_document(password_hash), handle)   # JSON is YAML
    return config


def storage_for_run(work, prefix):
    """A fresh PostgreSQL database of IDCONNECT_POSTGRES_URL's server (shared: True), else a SQLite file."""
    server_url = os.environ.get("IDCONNECT_POSTGRES_URL")
    if not server_url:
        return f"sqlite:{work}/db.sqlite", False
    database = f"idc_{prefix}_" + secrets.token_hex(6)
    subprocess.run(["psql", server_url, "-q", "-c", f"CREATE DATABASE {database}"], check=True)
    parts = urllib.parse.urlsplit(server_url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + database)), True


def feature_instances(binary, config, work, prefix):
    """The brokers of one feature check: two instances sharing a fresh PostgreSQL database when
    IDCONNECT_POSTGRES_URL is set, else one on SQLite; one issuer, the first instance's address.
    Returns (issuer, instances, shared); the caller starts and stops them."""
    storage, shared = storage_for_run(work, prefix.replace("-", ""))
    first_port = free_port()
    issuer = f"http://127.0.0.1:{first_port}"
    first = Instance(f"{prefix}-a", binary, config, storage, issuer, work)
    first.port = first_port
    return issuer, [first] + ([Instance(f"{prefix}-b", binary, config, storage, issuer, work)] if shared else []), shared


def code_flow_tokens(port, client, secret, redirect, user, password="pw", scope="openid"):
    """The automated grant at the instance on `port` (POST /oauth/auth, the credentials posted to the
    temp login URI), then the code exchanged with the client's secret: the token response."""
    base = f"http://127.0.0.1:{port}"
    flow = {"client_id": client, "redirect_uri": redirect, "response_type": "code"}
    status, _, body = call(port, "POST", "/oauth/auth", dict(flow, scope=scope))
    if status != 200:
        fail(f"/oauth/auth for {user}: {status} {body[:200]}")
    temp = urllib.parse.urlsplit(json.loads(body)["temp_login_uri"]).path
    status, headers, body = call(port, "POST", temp, dict(flow, username=user, password=password))
    location = headers.get("Location", headers.get("location", ""))
    if status not in (302, 303) or "code=" not in location:
        fail(f"sign-in of {user}: {status} {body[:200]} {location}")
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    basic = "Basic " + base64.b64encode(f"{client}:{secret}".encode()).decode()
    status, _, body = call(port, "POST", "/oauth/token", {"grant_type": "authorization_code", "code": code,
                                                          "redirect_uri": redirect, "client_id": client},
                           {"Authorization": basic})
    if status != 200:
        fail(f"code exchange for {user} at {base}: {status} {body[:200]}")
    return json.loads(body)


REDIRECT = "http://localhost:3000/callback"
CLIENT, SECRET = "kid_multi", "multi-instance-secret"


def fail(message):
    print(f"multi-instance: FAIL: {message}", file=sys.stderr)
    for name, instance in INSTANCES.items():
        print(f"--- instance {name} log (tail) ---", file=sys.stderr)
        try:
            print("".join(open(instance.log).readlines()[-15:]), file=sys.stderr)
        except OSError:
            pass
    sys.exit(1)


def call(port, method, path, form=None, headers=None, timeout=30):
    """One HTTP request; returns (status, headers dict, body text). Redirects are not followed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    body = urllib.parse.urlencode(form) if form is not None else None
    all_headers = dict(headers or {})
    if body is not None:
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


# --- the AuthLink stand-in -------------------------------------------------------------------

REFRESHES = {}
REFRESH_LOCK = threading.Lock()


class AuthLink(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        fields = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if self.path == "/login":
            user = fields.get("username", "")
            if fields.get("password") != "pw":
                return self.answer(401, {})
            # "short…" users get an upstream token that is already inside the refresh margin.
            lifetime = 1 if user.startswith("short") else 3600
            return self.answer(200, {"authenticated": True, "token": f"tok-{user}", "expires_in": lifetime,
                                     "refresh_token": f"rt-{user}", "email": f"{user}@example.org"})
        if self.path == "/refresh":
            token = fields.get("refresh_token", "")
            with REFRESH_LOCK:
                REFRESHES[token] = REFRESHES.get(token, 0) + 1
            time.sleep(0.3)  # a slow identity source widens the window for duplicate refreshes
            return self.answer(200, {"authenticated": True, "token": f"tok-refreshed-{token}", "expires_in": 3600,
                                     "refresh_token": token})
        self.answer(404, {})


# --- broker instances ------------------------------------------------------------------------

INSTANCES = {}


class Instance:
    def __init__(self, name, binary, config, storage, issuer, work):
        self.name, self.binary, self.config, self.storage, self.issuer = name, binary, config, storage, issuer
        self.port = free_port()
        self.log = os.path.join(work, f"{name}.log")
        self.process = None
        INSTANCES[name] = self

    def start(self):
        self.launch()
        self.wait_ready()

    def launch(self):
        """Starts the process without waiting for it to be ready."""
        self.process = subprocess.Popen(
            [self.binary, "serve", "--config", self.config, "--port", str(self.port), "--issuer", self.issuer,
             "--storage", self.storage], stdout=open(self.log, "a"), stderr=subprocess.STDOUT)

    def wait_ready(self, seconds=60):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.process.poll() is not None:
                fail(f"instance {self.name} exited with {self.process.returncode}")
            try:
                if call(self.port, "GET", "/readyz", timeout=5)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        fail(f"instance {self.name} not ready within {seconds}s")

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, sig=signal.SIGTERM):
        if self.alive():
            self.process.send_signal(sig)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def sign_in(port, user):
    """Automated grant on the instance at `port`; returns the authorization code."""
    status, _, body = call(port, "POST", "/oauth/auth",
                           {"client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": "code"})
    if status != 200:
        raise RuntimeError(f"/oauth/auth {status}: {body[:200]}")
    temp = urllib.parse.urlsplit(json.loads(body)["temp_login_uri"])
    status, headers, body = call(port, "POST", temp.path, {
        "client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": "code", "username": user, "password": "pw"})
    location = headers.get("Location", headers.get("location", ""))
    if status not in (302, 303) or "code=" not in location:
        raise RuntimeError(f"sign-in {status}: {body[:200]} {location}")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]


AUTH = {"Authorization": "Basic " + base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode()}


def exchange(port, code):
    return call(port, "POST", "/oauth/token",
                {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": CLIENT},
                AUTH)


def refresh(port, token):
    return call(port, "POST", "/oauth/token", {"grant_type": "refresh_token", "refresh_token": token}, AUTH)


def validate(port, access):
    return call(port, "GET", "/oauth/validate", headers={"Authorization": f"Bearer {access}"})


def tokens(port, user):
    status, _, body = exchange(port, sign_in(port, user))
    if status != 200:
        raise RuntimeError(f"code exchange {status}: {body[:200]}")
    return json.loads(body)
