#!/usr/bin/env python3
"""Pre-authentication flood check (docs/security.md, rule 13) against a real `idconnect serve`.

Starts the broker on a copy of the shipped console-config (with 127.0.0.1 as a trusted proxy),
then
  1. sends 12,000 failed password grants, each with a unique 8 KB username and from a different
     client address (X-Forwarded-For: a botnet, not one address the address limit would stop),
     and reports how much the broker's resident memory grew (limit: 25 MiB);
  2. sends 3,000 unauthenticated authorization requests (POST /oauth/auth, API mode, a 1 KB
     state each) from one address, and reports how much the SQLite files grew (limit: 1 MiB) and
     how many were refused with 429.
Exits non-zero when a limit is exceeded. Usage: flood-check.py PATH-TO-idconnect [--json]
"""
import base64
import concurrent.futures
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASIC = "Basic " + base64.b64encode(b"kid_demo:demo-app-secret-change-me").decode()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def storage_bytes(directory):
    """The database's size once its write-ahead log is folded in (the log is a transient buffer
    of page writes, reused after each checkpoint)."""
    import sqlite3
    path = os.path.join(directory, "idconnect.sqlite")
    connection = sqlite3.connect(path, timeout=30)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        size = connection.execute("PRAGMA page_size").fetchone()[0]
    finally:
        connection.close()
    return (pages - free) * size


def post(port, path, form, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", path, body=urllib.parse.urlencode(form),
                       headers={"Content-Type": "application/x-www-form-urlencoded", **headers})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def run(binary):
    work = tempfile.mkdtemp(prefix="idc-flood-")
    config = os.path.join(work, "config")
    shutil.copytree(os.path.join(ROOT, "console-config"), config)
    with open(os.path.join(config, "server.yaml"), "w") as server_yaml:
        server_yaml.write("server:\n  trustedProxies: [ 127.0.0.1 ]\n")
    port = free_port()
    data = os.path.join(work, "data")
    log = open(os.path.join(work, "broker.log"), "w")
    server = subprocess.Popen([binary, "serve", "--config", config, "--port", str(port),
                               "--storage", "sqlite:" + os.path.join(data, "idconnect.sqlite")],
                              stdout=log, stderr=subprocess.STDOUT, cwd=work)
    try:
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    raise SystemExit("the broker did not start; see " + log.name)
                time.sleep(0.2)
        # Warm up: one of each request, so the baseline includes what every request allocates once.
        post(port, "/oauth/token", {"grant_type": "password", "username": "warm", "password": "x"}, {"Authorization": BASIC})
        post(port, "/oauth/auth", {"client_id": "kid_demo", "redirect_uri": "http://localhost:3000/callback",
                                   "response_type": "code", "state": "s"}, {})
        time.sleep(1)
        rss_before = rss_kib(server.pid)
        def grant(index):
            username = f"u{index:06d}-" + "x" * 7992   # 8,000 bytes: under the 8 KiB parameter limit
            address = f"10.{index // 65536}.{(index // 256) % 256}.{index % 256}"
            return post(port, "/oauth/token", {"grant_type": "password", "username": username, "password": "wrong"},
                        {"Authorization": BASIC, "X-Forwarded-For": address})
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            grant_statuses = list(pool.map(grant, range(12_000)))
        time.sleep(1)
        rss_after = rss_kib(server.pid)
        storage_before = storage_bytes(data)
        state = "s" * 1024
        def authorize(_):
            return post(port, "/oauth/auth", {"client_id": "kid_demo", "redirect_uri": "http://localhost:3000/callback",
                                              "response_type": "code", "state": state}, {})
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            auth_statuses = list(pool.map(authorize, range(3_000)))
        time.sleep(1)
        storage_after = storage_bytes(data)
        return {
            "password_grants": len(grant_statuses),
            "password_grant_statuses": {str(s): grant_statuses.count(s) for s in sorted(set(grant_statuses))},
            "rss_growth_mib": round((rss_after - rss_before) / 1024, 1),
            "authorization_requests": len(auth_statuses),
            "authorization_statuses": {str(s): auth_statuses.count(s) for s in sorted(set(auth_statuses))},
            "storage_growth_kib": round((storage_after - storage_before) / 1024, 1),
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    result = run(os.path.abspath(sys.argv[1]))
    print(json.dumps(result) if "--json" in sys.argv else
          f"12,000 failed grants with 8 KB usernames: RSS +{result['rss_growth_mib']} MiB {result['password_grant_statuses']}\n"
          f"3,000 authorization requests with a 1 KB state: storage +{result['storage_growth_kib']} KiB "
          f"{result['authorization_statuses']}")
    failed = []
    if result["rss_growth_mib"] >= 25:
        failed.append("memory grew by 25 MiB or more")
    if result["storage_growth_kib"] >= 1024:
        failed.append("storage grew by 1 MiB or more")
    if failed:
        raise SystemExit("flood check failed: " + "; ".join(failed))


if __name__ == "__main__":
    main()
