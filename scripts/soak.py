#!/usr/bin/env python3
"""Soak with faults (docs/fuzzing.md, "Soak with faults"): two `idconnect serve` processes on one
PostgreSQL database under mixed load while things break, then an audit of what the clients hold.

    python3 scripts/soak.py BIN [--minutes 30] [--kill-every 120] [--workers 8] [--json FILE]

Load (each worker a client of its own, on either instance): sign-ins through AuthLink and, when
IDCONNECT_LDAP_URL names the test slapd, through LDAP; code exchanges on the other instance; refreshes
of the refresh token it holds; validates; data-link gateway calls; app-instance registrations; and
a replay of each code it redeemed (which must fail).

Faults: every --kill-every seconds instance B gets `kill -9` and is restarted (A runs throughout,
so its RSS and open-file curves cover the whole run); PostgreSQL is stopped and started once at
half time (needs IDCONNECT_POSTGRES_DIR); the AuthLink stand-in stops answering for 20 s once at a
quarter (longer than the connector's 2 s timeout).

Verdict (exit 1 on any): a refresh token a client holds no longer works at the end (lost); a
code or refresh token spent twice (two different successful answers); a 5xx outside the
PostgreSQL-restart window other than the 503 an AuthLink outage gives; A's RSS at the end more
than 1.5x its RSS after warm-up, or its open files grown by more than 50. Prints the table of
requests and errors by phase and kind, and the RSS/fd curve.

Needs IDCONNECT_POSTGRES_URL (scripts/test.sh starts PostgreSQL); python3 and openssl only.
"""
import argparse
import http.client
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import Instance, call, fail  # noqa: E402
from soak_support import (Phases, Sampler, configure, exchange_as, refresh_as, register_instance, sign_in_as,  # noqa: E402
                          statement_key)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Stall:
    """While set, the AuthLink stand-in answers after 25 s (its connector's timeout is 2 s)."""
    until = 0.0


class AuthLink(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, payload):
        if time.time() < Stall.until:
            time.sleep(25)
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass

    def do_POST(self):
        fields = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if self.path == "/login":
            user = fields.get("username", "")
            if fields.get("password") != "pw":
                return self.answer(401, {})
            return self.answer(200, {"authenticated": True, "token": f"tok-{user}-{secrets.token_hex(4)}", "expires_in": 60,
                                     "refresh_token": f"rt-{user}"})
        if self.path == "/refresh":
            return self.answer(200, {"authenticated": True, "token": f"tok-r-{secrets.token_hex(4)}", "expires_in": 60,
                                     "refresh_token": fields.get("refresh_token", "")})
        self.answer(404, {})


class Backend(BaseHTTPRequestHandler):
    """The data link: answers 200 when the broker's headers arrived."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        ok = self.headers.get("X-Auth-Key") == "soak-link-key"
        data = b'{"ok":true}' if ok else b'{"ok":false}'
        self.send_response(200 if ok else 400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class QuietServer(ThreadingHTTPServer):
    """A stand-in server: a broker killed mid-connection is expected here, not worth a traceback."""
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class Ledger:
    """What the clients hold and what they were given, for the end-of-run audit."""

    def __init__(self):
        self.lock = threading.Lock()
        self.held = {}                          # client → (its latest refresh token, its client_id)
        self.rotations = defaultdict(set)       # old refresh token → the new ones successful answers gave
        self.code_wins = Counter()              # code → successful redemptions

    def hold(self, client, token):
        with self.lock:
            self.held[client] = token

    def rotated(self, old, new):
        with self.lock:
            self.rotations[old].add(new)

    def redeemed(self, code):
        with self.lock:
            self.code_wins[code] += 1


def worker(index, instances, phases, ledger, stop, key, ldap):
    rng = random.Random(index)
    client = f"c{index}"
    access = refresh_token = client_id = None
    retry_refresh = False  # a refresh whose answer was lost: retried at once (the grace period covers it)
    while not stop.is_set():
        alive = [i for i in instances if i.alive()] or instances
        instance = rng.choice(alive)
        other = next((i for i in alive if i is not instance), instance)
        action = rng.choices(["login", "refresh", "validate", "gateway", "register", "replay"], [2, 5, 6, 3, 1, 1])[0]
        if refresh_token is None:
            action = "login"
        if retry_refresh:
            action = "refresh"
        try:
            if action == "login":
                service = "ldap" if ldap and rng.random() < 0.4 else "link"
                status, code, signed_in_client = sign_in_as(instance.port, service, rng)
                phases.record(f"login-{service}", status)
                if code is None:
                    continue
                status, _, body = exchange_as(other.port, code, signed_in_client)
                phases.record("exchange", status)
                if status != 200:
                    continue
                ledger.redeemed(code)
                issued = json.loads(body)
                access, client_id = issued["access_token"], signed_in_client
                if issued.get("refresh_token"):
                    refresh_token = issued["refresh_token"]
                    ledger.hold(client, (refresh_token, client_id))
            elif action == "refresh":
                retry_refresh = False
                status, _, body = refresh_as(instance.port, refresh_token, client_id)
                phases.record(action, status)
                if status == 200:
                    issued = json.loads(body)
                    ledger.rotated(refresh_token, issued["refresh_token"])
                    access, refresh_token = issued["access_token"], issued["refresh_token"]
                    ledger.hold(client, (refresh_token, client_id))
                elif status >= 500:
                    retry_refresh = True
                    time.sleep(0.5)
            elif action == "replay":
                # A code redeemed once, then again: the second must fail (and revokes what the
                # first issued, so these tokens are not the client's own).
                status, code, signed_in_client = sign_in_as(instance.port, "link", rng)
                if code is None:
                    phases.record(action, f"sign-in {status}")
                    continue
                status = exchange_as(other.port, code, signed_in_client)[0]
                if status == 200:
                    ledger.redeemed(code)
                    status = exchange_as(instance.port, code, signed_in_client)[0]
                    if status == 200:
                        ledger.redeemed(code)
                phases.record(action, status)
            elif action == "validate":
                phases.record(action, call(instance.port, "GET", "/oauth/validate", headers={"Authorization": f"Bearer {access}"})[0])
            elif action == "gateway":
                phases.record(action, call(instance.port, "GET", "/datalink/crm/orders/7?x=1",
                                           headers={"Authorization": f"Bearer {access}"})[0])
            else:
                phases.record(action, register_instance(instance.port, key))
        except (OSError, http.client.HTTPException) as error:
            # The instance died mid-request (refused, reset, a body cut short): the client goes on.
            phases.record(action, f"connection:{type(error).__name__}")
            retry_refresh = action == "refresh"
            time.sleep(0.2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--kill-every", type=float, default=120, help="seconds between kill -9 of instance B")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    server_url = os.environ.get("IDCONNECT_POSTGRES_URL")
    postgres_dir = os.environ.get("IDCONNECT_POSTGRES_DIR")
    ldap = os.environ.get("IDCONNECT_LDAP_URL")
    if not server_url:
        print("soak: SKIPPED: IDCONNECT_POSTGRES_URL is not set (scripts/test.sh starts PostgreSQL)")
        return 0
    duration = args.minutes * 60
    database = "idc_soak_" + secrets.token_hex(6)
    subprocess.run(["psql", server_url, "-q", "-c", f"CREATE DATABASE {database}"], check=True)
    parts = urllib.parse.urlsplit(server_url)
    storage = urllib.parse.urlunsplit(parts._replace(path="/" + database, query=(parts.query + "&" if parts.query else "")
                                                     + "pool=8&statement_timeout=3&connect_timeout=2"))
    servers = [QuietServer(("127.0.0.1", 0), handler) for handler in (AuthLink, Backend)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    link, backend = (f"http://127.0.0.1:{server.server_address[1]}" for server in servers)
    work = tempfile.mkdtemp(prefix="idc-soak-")
    key, jwks = statement_key(work)
    config = configure(work, link, backend, ldap, jwks)
    a = Instance("A", args.binary, config, storage, "", work)
    a.issuer = f"http://127.0.0.1:{a.port}"
    b = Instance("B", args.binary, config, storage, a.issuer, work)
    phases = Phases()
    ledger = Ledger()
    stop = threading.Event()
    sampler = Sampler(a)
    try:
        a.start()
        b.start()
        print(f"soak: {args.minutes:g} min, {args.workers} clients, kill -9 of B every {args.kill_every:g} s, "
              f"LDAP {'on' if ldap else 'off (IDCONNECT_LDAP_URL not set)'}", flush=True)
        threads = [threading.Thread(target=worker, args=(i, [a, b], phases, ledger, stop, key, ldap), daemon=True)
                   for i in range(args.workers)]
        for thread in threads:
            thread.start()
        started = time.time()
        next_kill = started + args.kill_every
        stall_at, restart_at = started + duration * 0.25, started + duration * 0.5
        stalled = restarted = False
        kills = 0
        while time.time() - started < duration:
            sampler.sample(time.time() - started)
            now = time.time()
            if not stalled and now >= stall_at:
                stalled = True
                phases.enter("authlink-outage", seconds=25)
                Stall.until = now + 20
                print(f"  {now - started:5.0f} s  AuthLink stops answering for 20 s", flush=True)
            if not restarted and postgres_dir and now >= restart_at:
                restarted = True
                phases.enter("postgres-restart", seconds=None)
                print(f"  {now - started:5.0f} s  PostgreSQL stopped", flush=True)
                subprocess.run([os.path.join(ROOT, "scripts/peers/postgres-stop.sh"), postgres_dir, "--keep"], check=True)
                time.sleep(5)
                subprocess.run([os.path.join(ROOT, "scripts/peers/postgres-start.sh"), postgres_dir], check=True,
                               stdout=subprocess.DEVNULL)
                for instance in (a, b):
                    if instance.alive():
                        instance.wait_ready(60)
                phases.leave_after(5)
                print(f"  {time.time() - started:5.0f} s  PostgreSQL back, both instances ready", flush=True)
            if now >= next_kill:
                next_kill = now + args.kill_every
                kills += 1
                phases.enter("broker-restart", seconds=None)
                b.stop(signal.SIGKILL)
                time.sleep(1)
                b.start()
                phases.leave_after(2)
                print(f"  {time.time() - started:5.0f} s  B killed (-9) and restarted ({kills})", flush=True)
            time.sleep(1)
        stop.set()
        for thread in threads:
            thread.join(60)
        sampler.sample(time.time() - started)
        lost = [client for client, (token, client_id) in ledger.held.items() if refresh_as(a.port, token, client_id)[0] != 200]
        double_codes = [code for code, wins in ledger.code_wins.items() if wins > 1]
        double_refresh = [old for old, new in ledger.rotations.items() if len(new) > 1]
        report = phases.report()
        verdict = phases.server_errors_outside(["postgres-restart"])
        growth = sampler.growth()
        print(report)
        print(sampler.curve())
        print(f"  refresh tokens held at the end: {len(ledger.held)}, lost: {len(lost)}; codes redeemed: "
              f"{len(ledger.code_wins)}, spent twice: {len(double_codes)}; refresh tokens spent twice: {len(double_refresh)}")
        if args.json:
            with open(args.json, "w") as out:
                json.dump({"phases": phases.table(), "samples": sampler.samples, "lost": len(lost), "held": len(ledger.held),
                           "double_codes": len(double_codes), "double_refresh": len(double_refresh), "kills": kills}, out, indent=1)
        problems = []
        if lost:
            problems.append(f"{len(lost)} refresh token(s) lost")
        if double_codes or double_refresh:
            problems.append(f"double spends: {len(double_codes)} codes, {len(double_refresh)} refresh tokens")
        if verdict:
            problems.append(f"5xx outside the PostgreSQL restart: {verdict}")
        if growth["rss"] > 1.5 or growth["fds"] > 50:
            problems.append(f"A grew: RSS x{growth['rss']:.2f}, open files +{growth['fds']}")
        if not a.alive():
            problems.append("instance A died")
        if problems:
            fail("; ".join(problems))
        print("soak: OK")
        return 0
    finally:
        stop.set()
        for instance in (a, b):
            instance.stop()
        for server in servers:
            server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
