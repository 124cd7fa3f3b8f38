#!/usr/bin/env python3
"""Two real `idconnect serve` processes on one PostgreSQL database behave as one service
(docs/operations.md, "Several instances on one database").

    scripts/multi-instance-test.py BIN        (BIN: the built idconnect binary)

Needs IDCONNECT_POSTGRES_URL (a server URL; a fresh database is created for the run) and, for
the database-restart step, IDCONNECT_POSTGRES_DIR (the directory scripts/peers/postgres-start.sh
was given). An AuthLink stand-in in this process counts its /refresh calls.

Checks, in order: an unreachable database stops `serve` at start with a clear message and a
non-zero exit; a code issued by A is redeemed on B; a token revoked on A is refused on B within
1 s although both had just validated it; 1,000 racing redemptions of the same codes
and refresh tokens across both give exactly one winner each; 100 concurrent validates of a
session whose upstream token expired, across both, cause exactly one upstream refresh; kill -9
of one instance under load leaves the other serving and loses no issued refresh token;
PostgreSQL restarted: both answer /readyz 503 meanwhile and recover without a restart.
"""
import base64
import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from http.server import ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import (  # noqa: E402
    CLIENT, REDIRECT, REFRESHES, SECRET, AuthLink, Instance, call, exchange, fail, free_port, refresh,
    sign_in, tokens, validate)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- the checks ------------------------------------------------------------------------------

def check_unreachable(binary, config, work):
    port = free_port()
    started = time.time()
    result = subprocess.run([binary, "serve", "--config", config, "--port", str(free_port()), "--storage",
                             f"postgres://idconnect:hunter2secret@127.0.0.1:{port}/nowhere?connect_timeout=3"],
                            capture_output=True, text=True, timeout=60)
    output = result.stdout + result.stderr
    if result.returncode == 0:
        fail("serve started without its database")
    if f"cannot connect to PostgreSQL at 127.0.0.1:{port}/nowhere" not in output:
        fail(f"unreachable database not named in the error: {output[-400:]}")
    if "hunter2secret" in output:
        fail("the database password appeared in the error")
    print(f"  unreachable database at start: exit {result.returncode} in {time.time() - started:.1f}s with a clear message")


def check_cross_instance(a, b):
    code = sign_in(a.port, "alice")
    status, _, body = exchange(b.port, code)
    if status != 200:
        fail(f"code from A not redeemed on B: {status} {body[:200]}")
    issued = json.loads(body)
    for instance in (a, b):
        if validate(instance.port, issued["access_token"])[0] != 200:
            fail(f"token from B does not validate on {instance.name}")
    status, _, body = refresh(a.port, issued["refresh_token"])
    if status != 200:
        fail(f"refresh token from B not accepted by A: {status} {body[:200]}")
    for signer, checker in ((a, b), (b, a)):
        status, _, body = exchange(signer.port, sign_in(signer.port, "alice"))
        token = json.loads(body)["access_token"] if status == 200 else None
        if token is None or validate(checker.port, token)[0] != 200:
            fail(f"token signed by {signer.name} right after a simultaneous start does not validate on {checker.name}")
    print("  started together on an empty database; code issued by A redeemed on B; tokens signed by either"
          " validate and refresh on both at once")


def check_revocation_reaches(a, b):
    """A revocation on A is refused on A at once and on B within 1 s, although both just validated
    the token (each keeps an access context for at most 0.5 s: docs/protocol.md, "GET /oauth/validate")."""
    issued = tokens(a.port, "revoked")
    for _ in range(5):
        for instance in (a, b):
            if validate(instance.port, issued["access_token"])[0] != 200:
                fail(f"a fresh token does not validate on {instance.name}")
    status, _, body = call(a.port, "POST", "/oauth/revoke", {"token": issued["refresh_token"]},
                           headers={"Authorization": "Basic " + base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode()})
    revoked_at = time.monotonic()
    if status != 200:
        fail(f"revocation on A: {status} {body[:200]}")
    if validate(a.port, issued["access_token"])[0] != 401:
        fail("a token revoked on A still validates on A")
    while True:
        began = time.monotonic() - revoked_at
        status = validate(b.port, issued["access_token"])[0]
        if status == 401:
            break
        if status != 200 or began >= 0.5:
            fail(f"a token revoked on A answered {status} on B {began * 1000:.0f} ms after the revocation")
        time.sleep(0.01)
    print(f"  a token revoked on A: refused on A at once, on B {began * 1000:.0f} ms after (at most 500 ms; contract 1 s)")


def check_races(a, b):
    instances = [a, b]
    codes = [sign_in(instances[i % 2].port, f"racer{i}") for i in range(20)]
    attempts = [(codes[i % 20], instances[i % 2].port) for i in range(500)]
    with ThreadPoolExecutor(64) as pool:
        results = list(pool.map(lambda item: (item[0],) + exchange(item[1], item[0]), attempts))
    winners = {}
    for code, status, _, body in results:
        if status == 200:
            winners.setdefault(code, []).append(json.loads(body))
        elif status != 400 or json.loads(body).get("error") != "invalid_grant":
            fail(f"racing code redemption answered {status}: {body[:200]}")
    if sorted(winners) != sorted(codes) or any(len(v) != 1 for v in winners.values()):
        fail(f"codes: expected exactly one winner per code, got {[len(v) for v in winners.values()]}")
    # A replayed code revokes what its first use issued (RFC 6749 §10.5), on either instance.
    for issued in list(winners.values())[:5]:
        if validate(b.port, issued[0]["access_token"])[0] == 200:
            fail("tokens of a replayed code still validate")
    refresh_tokens = [tokens(instances[i % 2].port, f"rotator{i}")["refresh_token"] for i in range(20)]
    attempts = [(refresh_tokens[i % 20], instances[i % 2].port) for i in range(500)]
    with ThreadPoolExecutor(64) as pool:
        results = list(pool.map(lambda item: (item[0],) + refresh(item[1], item[0]), attempts))
    rotated = {}
    for token, status, _, body in results:
        if status == 200:
            rotated.setdefault(token, set()).add(json.loads(body)["refresh_token"])
        elif status != 400:
            fail(f"racing refresh answered {status}: {body[:200]}")
    # Losers inside the grace period get the winner's response again: one new token per old one.
    if sorted(rotated) != sorted(refresh_tokens) or any(len(v) != 1 for v in rotated.values()):
        fail(f"refresh: expected exactly one rotation per token, got {[len(v) for v in rotated.values()]}")
    for new in list(rotated.values())[:5]:
        if refresh(a.port, next(iter(new)))[0] != 200:
            fail("the winning rotation's refresh token does not work")
    print("  1,000 racing redemptions (500 of 20 codes, 500 of 20 refresh tokens) across A and B: one winner each")


def check_single_refresh(a, b):
    issued = tokens(a.port, "short-lived")
    time.sleep(1.2)
    ports = [a.port, b.port] * 50
    with ThreadPoolExecutor(100) as pool:
        statuses = list(pool.map(lambda port: validate(port, issued["access_token"])[0], ports))
    if statuses.count(200) != 100:
        fail(f"validates of an expired upstream session: {sorted(set(statuses))}")
    count = REFRESHES.get("rt-short-lived", 0)
    if count != 1:
        fail(f"100 validates across both instances caused {count} upstream refreshes, expected 1")
    print("  100 concurrent validates of an expired upstream session across A and B: exactly 1 upstream refresh")


def check_kill(a, b):
    chains = {}  # worker → its latest refresh token, as the client holds it
    stop = threading.Event()
    served_after_kill = [0]
    killed = threading.Event()
    errors = []

    def worker(index):
        port_cycle = [a.port, b.port]
        try:
            latest = tokens(a.port, f"load{index}")["refresh_token"]
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(f"setup: {error}")
            return
        chains[index] = latest
        turn = index
        while not stop.is_set():
            turn += 1
            port = port_cycle[turn % 2]
            if killed.is_set() and port == b.port:
                continue
            try:
                status, _, body = refresh(port, latest)
            except (OSError, http.client.HTTPException):
                continue  # the instance died mid-request: the client keeps its token and retries
            if status == 200:
                latest = json.loads(body)["refresh_token"]
                chains[index] = latest
                if killed.is_set():
                    served_after_kill[0] += 1
            elif status != 503:
                errors.append(f"refresh {status}: {body[:160]}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    time.sleep(3)
    b.stop(signal.SIGKILL)
    killed.set()
    time.sleep(3)
    stop.set()
    for thread in threads:
        thread.join()
    if errors:
        fail(f"errors under load: {errors[:3]}")
    if served_after_kill[0] == 0:
        fail("A served no refresh after B was killed")
    # Every refresh token a client holds still works (a rotation B committed but never answered
    # is covered by the grace period: the old token returns the new pair).
    lost = [i for i, token in chains.items() if refresh(a.port, token)[0] != 200]
    if lost or len(chains) != 16:
        fail(f"refresh tokens lost after kill -9: {len(lost)} of {len(chains)}")
    print(f"  kill -9 of B under load: A served {served_after_kill[0]} refreshes after it; all {len(chains)} clients' tokens still work")


def check_database_restart(a, b, postgres_dir):
    stop_script = os.path.join(ROOT, "scripts/peers/postgres-stop.sh")
    start_script = os.path.join(ROOT, "scripts/peers/postgres-start.sh")
    issued = tokens(a.port, "restart")
    status, _, body = call(b.port, "POST", "/oauth/auth", {"client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": "code"})
    pending = urllib.parse.urlsplit(json.loads(body)["temp_login_uri"]).path if status == 200 else fail(f"/oauth/auth {status}")
    subprocess.run([stop_script, postgres_dir, "--keep"], check=True)
    try:
        check_database_down(a, b, issued, pending)
    finally:
        subprocess.run([start_script, postgres_dir], check=True, stdout=subprocess.DEVNULL)
    for instance in (a, b):
        instance.wait_ready(30)
    if validate(b.port, issued["access_token"])[0] != 200:
        fail("token issued before the restart does not validate after it")
    if refresh(b.port, issued["refresh_token"])[0] != 200:
        fail("refresh token issued before the restart does not work after it")
    tokens(b.port, "after-restart")
    print("  PostgreSQL restarted: /readyz and requests 503 meanwhile, both instances recovered without a restart")


def check_database_down(a, b, issued, pending):
    for instance in (a, b):
        status = call(instance.port, "GET", "/readyz", timeout=10)[0]
        if status != 503:
            fail(f"{instance.name} /readyz answered {status} with the database down")
        if not instance.alive():
            fail(f"{instance.name} exited when the database went away")
    # Requests fail cleanly and promptly meanwhile (statement_timeout + connect_timeout = 4 s).
    time.sleep(1.5)  # the reachability probe runs once a second
    started = time.time()
    status, _, body = validate(a.port, issued["access_token"])
    if status != 503 or time.time() - started > 8:
        fail(f"validate with the database down: {status} after {time.time() - started:.1f}s: {body[:200]}")
    # Starting a sign-in needs the database too: 503, never a 500.
    status, _, body = call(b.port, "POST", "/oauth/auth", {"client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": "code"})
    if status != 503:
        fail(f"starting a sign-in with the database down: {status}: {body[:200]}")
    # Finishing one begun before: 503 as well, never a 500 (found by scripts/soak.py).
    status, _, body = call(b.port, "POST", pending, {"client_id": CLIENT, "redirect_uri": REDIRECT, "response_type": "code",
                                                     "username": "restart", "password": "pw"})
    if status != 503:
        fail(f"finishing a sign-in with the database down: {status}: {body[:200]}")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/idconnect")
    server_url = os.environ.get("IDCONNECT_POSTGRES_URL")
    postgres_dir = os.environ.get("IDCONNECT_POSTGRES_DIR")
    if not server_url:
        print("multi-instance: SKIPPED: IDCONNECT_POSTGRES_URL is not set (scripts/test.sh starts PostgreSQL)")
        return
    database = "idc_multi_" + secrets.token_hex(6)
    subprocess.run(["psql", server_url, "-q", "-c", f"CREATE DATABASE {database}"], check=True)
    parts = urllib.parse.urlsplit(server_url)
    storage = urllib.parse.urlunsplit(parts._replace(path="/" + database, query=(parts.query + "&" if parts.query else "") + "pool=8&statement_timeout=2&connect_timeout=2"))

    authlink = ThreadingHTTPServer(("127.0.0.1", 0), AuthLink)
    threading.Thread(target=authlink.serve_forever, daemon=True).start()
    link = f"http://127.0.0.1:{authlink.server_address[1]}"

    work = tempfile.mkdtemp(prefix="idc-multi-")
    config = os.path.join(work, "config")
    os.makedirs(os.path.join(config, "environments"))
    os.environ["IDCONNECT_VAULT_KEY"] = base64.b64encode(os.urandom(32)).decode()
    with open(os.path.join(config, "server.yaml"), "w") as f:
        f.write("vault:\n  keys:\n    - id: v1\n      secret: ${env:IDCONNECT_VAULT_KEY}\n")
    with open(os.path.join(config, "environments", "multi.yaml"), "w") as f:
        f.write(f"""environments:
  - appKey: {CLIENT}
    appSecret: {SECRET}
    name: Multi-instance test
    defaultAuthService: link
    authServices:
      - id: link
        name: AuthLink
        redirectUri: [ "{REDIRECT}" ]
        grantTtl: 60
        tokenTtl: 3600
        refresh: true
        refreshTtl: 86400
        provider:
          type: custom
          remoteService: {link}/login
          options:
            refreshUrl: {link}/refresh
          allowedAttributes: [ id, email ]
""")
    a = Instance("A", binary, config, storage, "", work)
    issuer = f"http://127.0.0.1:{a.port}"
    a.issuer = issuer
    b = Instance("B", binary, config, storage, issuer, work)
    try:
        print("multi-instance: two idconnect serve processes on one PostgreSQL database")
        check_unreachable(binary, config, work)
        # Both at the same instant on the empty database: migrations race, and each may make a
        # signing key; tokens signed by either must still validate on both at once.
        a.launch()
        b.launch()
        a.wait_ready()
        b.wait_ready()
        check_cross_instance(a, b)
        check_revocation_reaches(a, b)
        check_races(a, b)
        check_single_refresh(a, b)
        check_kill(a, b)
        b.start()
        if postgres_dir:
            check_database_restart(a, b, postgres_dir)
        else:
            print("  database restart: SKIPPED (IDCONNECT_POSTGRES_DIR not set)")
        for instance in (a, b):
            for secret in ("hunter2secret", SECRET, parts.password or "\0"):
                if secret in open(instance.log).read():
                    fail(f"a secret appeared in {instance.name}'s log")
        print("multi-instance: OK")
    finally:
        for instance in (a, b):
            instance.stop()
        authlink.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
