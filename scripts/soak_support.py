"""Helpers of scripts/soak.py: the broker configuration, the clients' flows, the phase ledger
and the RSS / open-file sampler."""
import base64
import json
import os
import subprocess
import threading
import time
import urllib.parse
from collections import Counter

from multi_instance_support import CLIENT, REDIRECT, SECRET, call

IAT = "soak-initial-access-token"
NATIVE = "com.example.soak:/cb"
USERS = {"link": [(f"user{i}", "pw") for i in range(40)], "ldap": [("alice", "alicepw"), ("bob", "bobpw"), ("carol", "carolpw")]}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def statement_key(work):
    """An RSA key for the vendor's software statements; returns (key path, JWKS JSON)."""
    key = os.path.join(work, "statement.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    modulus = subprocess.run(["openssl", "rsa", "-in", key, "-noout", "-modulus"], check=True, capture_output=True, text=True)
    n = bytes.fromhex(modulus.stdout.strip().split("=", 1)[1])
    return key, json.dumps({"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "n": b64url(n), "e": "AQAB"}]})


def software_statement(key):
    header = b64url(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"iss": "https://vendor.example.com", "software_id": "SoakApp", "exp": int(time.time()) + 3600,
                                 "redirect_uris": [NATIVE], "scope": "openid",
                                 "grant_types": ["authorization_code", "refresh_token", "client_credentials"]}).encode())
    signed = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=f"{header}.{payload}".encode(),
                            check=True, capture_output=True).stdout
    return f"{header}.{payload}.{b64url(signed)}"


def configure(work, link, backend, ldap, jwks):
    """A config directory: one environment with an AuthLink service, an LDAP one (when `ldap` is
    set), the data link, instance registration, and rate limits out of the way of the load."""
    config = os.path.join(work, "config")
    os.makedirs(os.path.join(config, "environments"))
    vault = base64.b64encode(os.urandom(32)).decode()
    with open(os.path.join(config, "server.yaml"), "w") as out:
        out.write(f"vault:\n  keys:\n    - id: v1\n      secret: {vault}\n"
                  "server:\n  rateLimits: { authorizationsPerMinute: 100000000, registrationsPerMinute: 100000000,"
                  " registrationsPerTokenPerMinute: 100000000 }\n")
    ldap_service = f"""
      - id: ldap
        name: Directory
        redirectUri: [ "{REDIRECT}" ]
        provider:
          type: ldap
          remoteService: {ldap}
          authentication: {{ username: "cn=readonly,dc=example,dc=org", password: readonlypw }}
          options: {{ baseDn: "ou=people,dc=example,dc=org", timeout: 3, connectTimeout: 3 }}
          allowedAttributes: [ id, email ]
""" if ldap else ""
    with open(os.path.join(config, "environments", "soak.yaml"), "w") as out:
        out.write(f"""environments:
  - appKey: {CLIENT}
    appSecret: {SECRET}
    defaultAuthService: link
    registration:
      initialAccessTokens: [ {IAT} ]
      softwareStatements: {{ SoakApp: {{ jwks: '{jwks}' }} }}
    dataLinks:
      - {{ name: crm, url: "{backend}/api", authKey: soak-link-key, timeout: 5 }}
    authServices:
      - id: link
        name: AuthLink
        redirectUri: [ "{REDIRECT}", "{NATIVE}" ]
        refresh: true
        provider:
          type: custom
          remoteService: {link}/login
          options: {{ refreshUrl: {link}/refresh, timeout: 2 }}
          allowedAttributes: [ id ]
{ldap_service}""")
    return config


def basic(client_id):
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{SECRET}".encode()).decode()}


def sign_in_as(port, service, rng):
    """The automated grant for a user of `service`; returns (status, code, client_id)."""
    client_id = CLIENT if service == "link" else f"{CLIENT}.{service}"
    user, password = rng.choice(USERS[service])
    status, _, body = call(port, "POST", "/oauth/auth", {"client_id": client_id, "redirect_uri": REDIRECT, "response_type": "code"})
    if status != 200:
        return status, None, client_id
    temp = urllib.parse.urlsplit(json.loads(body)["temp_login_uri"])
    status, headers, _ = call(port, "POST", temp.path, {"client_id": client_id, "redirect_uri": REDIRECT, "response_type": "code",
                                                        "username": user, "password": password})
    location = headers.get("Location", headers.get("location", ""))
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
    if status in (302, 303) and "code" in query:
        return status, query["code"][0], client_id
    return (f"{status}:{query['error'][0]}" if "error" in query else status), None, client_id


def exchange_as(port, code, client_id):
    return call(port, "POST", "/oauth/token", {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                               "client_id": client_id}, basic(client_id))


def refresh_as(port, token, client_id):
    return call(port, "POST", "/oauth/token", {"grant_type": "refresh_token", "refresh_token": token}, basic(client_id))


def register_instance(port, key):
    body = json.dumps({"software_id": "SoakApp", "software_statement": software_statement(key), "device_type": "android",
                       "redirect_uris": [NATIVE]})
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/oauth/register", body=body, headers={"Content-Type": "application/json",
                                                                          "Authorization": f"Bearer {IAT}"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


class Phases:
    """Counts answers by phase (steady, broker-restart, postgres-restart, authlink-outage),
    action and kind (status code, or connection error)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = Counter()
        self.current, self.until = "steady", None

    def enter(self, name, seconds):
        with self.lock:
            self.current, self.until = name, (time.time() + seconds if seconds else None)

    def leave_after(self, seconds):
        with self.lock:
            self.until = time.time() + seconds

    def phase(self):
        if self.until is not None and time.time() >= self.until:
            self.current, self.until = "steady", None
        return self.current

    def record(self, action, kind):
        with self.lock:
            self.counts[(self.phase(), action, str(kind))] += 1

    def table(self):
        return [{"phase": p, "action": a, "kind": k, "count": c} for (p, a, k), c in sorted(self.counts.items())]

    def server_errors_outside(self, allowed_phases):
        """5xx answers outside `allowed_phases`; a 503 during the AuthLink outage is its expected answer."""
        bad = []
        for (phase, action, kind), count in self.counts.items():
            if not kind[:3].isdigit() or int(kind[:3]) < 500 or phase in allowed_phases:
                continue
            if phase == "authlink-outage" and kind.startswith("503"):
                continue
            bad.append(f"{phase}/{action}/{kind} x{count}")
        return bad

    def report(self):
        lines = ["  phase              action       answers (kind: count)"]
        grouped = {}
        for (phase, action, kind), count in sorted(self.counts.items()):
            grouped.setdefault((phase, action), []).append(f"{kind}: {count}")
        for (phase, action), kinds in grouped.items():
            lines.append(f"  {phase:<18} {action:<12} {', '.join(kinds)}")
        return "\n".join(lines)


class Sampler:
    """RSS and open file descriptors of one instance, every 10 s."""

    def __init__(self, instance):
        self.instance, self.samples, self.last = instance, [], 0.0

    def sample(self, elapsed):
        if elapsed - self.last < 10 and self.samples:
            return
        self.last = elapsed
        pid = self.instance.process.pid if self.instance.process else None
        try:
            with open(f"/proc/{pid}/status") as status:
                rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
            fds = len(os.listdir(f"/proc/{pid}/fd"))
        except (OSError, StopIteration, TypeError):
            return
        self.samples.append({"seconds": round(elapsed), "rss_kib": rss, "fds": fds})

    def growth(self):
        """End over warm-up (the first sample after a fifth of the run): RSS ratio, fd difference."""
        if len(self.samples) < 3:
            return {"rss": 1.0, "fds": 0}
        warm = self.samples[max(1, len(self.samples) // 5)]
        end = self.samples[-1]
        return {"rss": end["rss_kib"] / max(1, warm["rss_kib"]), "fds": end["fds"] - warm["fds"]}

    def curve(self):
        step = max(1, len(self.samples) // 12)
        points = self.samples[::step] + ([self.samples[-1]] if self.samples and self.samples[-1] not in self.samples[::step] else [])
        return "  A over the run: " + "  ".join(f"{p['seconds']}s {p['rss_kib'] // 1024} MiB/{p['fds']} fds" for p in points)
