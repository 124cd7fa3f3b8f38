#!/usr/bin/env python3
"""Validate and code-exchange throughput on SQLite vs PostgreSQL storage
(docs/benchmarks.md, "SQLite and PostgreSQL").

    IDCONNECT_POSTGRES_URL=postgres://… scripts/bench-storage.py [--duration 10] [--codes 3000] [--pool 10] [--configuration debug]

Runs one broker (and the sample AuthLink) per storage, each on a fresh store, loads it with wrk
over loopback (validate of one JWT; code exchange of prepared single-use codes) and prints one
line per storage and scenario. Uses the binaries already built (`swift build`); the numbers of
a debug build only compare the backends with each other.
"""
import argparse
import base64
import concurrent.futures
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
import broker  # noqa: E402
import load  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def postgres_storage(server_url, pool):
    """A fresh database on the server for this run, used through a pool of `pool` connections."""
    database = "idc_bench_" + secrets.token_hex(5)
    subprocess.run(["psql", server_url, "-q", "-c", f"CREATE DATABASE {database}"], check=True)
    parts = urllib.parse.urlsplit(server_url)
    query = "&".join(filter(None, [parts.query, f"pool={pool}"]))
    return urllib.parse.urlunsplit(parts._replace(path="/" + database, query=query))


def measure(label, storage, binaries, options, workdir):
    directory = os.path.join(workdir, label)
    os.makedirs(directory)
    authlink_port, port = broker.free_port(), broker.free_port()
    processes = []
    try:
        processes.append(broker.start([binaries["authlink"], "--port", str(authlink_port), "--users",
                                       os.path.join(ROOT, "Connectors", "AuthLinkSample", "users.json")],
                                      os.path.join(directory, "authlink.log")))
        broker.wait_until_up(authlink_port, "/", processes[-1])
        config = broker.write_config(directory, port, authlink_port, None)
        with open(os.path.join(config, "vault.yaml"), "w") as handle:
            handle.write("vault:\n  keys:\n    - id: bench\n      secret: ${env:IDCONNECT_VAULT_KEY}\n")
        env = dict(os.environ, IDCONNECT_LOG_LEVEL="warning",
                   IDCONNECT_VAULT_KEY=base64.b64encode(os.urandom(32)).decode())
        server = broker.start([binaries["idconnect"], "serve", "--config", config, "--port", str(port),
                               "--storage", storage], os.path.join(directory, "broker.log"), env=env)
        processes.append(server)
        broker.wait_until_up(port, "/readyz", server)
        common = dict(port=port, duration=options.duration, connections=options.connections, threads=options.threads)
        jwt = broker.password_grant(port, "authlink", "alice", "alicepw")
        validate = load.run_wrk(f"validate (JWT), {label}", **common, path="/oauth/validate",
                                headers={"Authorization": "Bearer " + jwt["access_token"]})
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:  # the login throttle lets 5 attempts per user be in flight
            codes = list(pool.map(lambda _: broker.authorization_code(port, "authlink", "alice", "alicepw"),
                                  range(options.codes)))
        exchange = load.run_wrk(
            f"code exchange, {label}", **common, method="POST", path="/oauth/token", pool=codes,
            headers={"Authorization": broker.basic_header(), "Content-Type": "application/x-www-form-urlencoded"},
            body=f"grant_type=authorization_code&client_id={broker.APP_KEY}&redirect_uri={broker.REDIRECT_URI}&code={{}}")
        return [validate, exchange]
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=15)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--codes", type=int, default=3000, help="prepared codes (the exchange stops when they run out)")
    parser.add_argument("--pool", type=int, default=10, help="PostgreSQL connections per broker (default 10)")
    parser.add_argument("--configuration", default="debug", choices=["debug", "release"])
    options = parser.parse_args()
    server_url = os.environ.get("IDCONNECT_POSTGRES_URL")
    if not server_url:
        raise SystemExit("IDCONNECT_POSTGRES_URL is not set (scripts/peers/postgres-start.sh DIR prints one)")
    directory = os.path.join(ROOT, ".build", options.configuration)
    binaries = {"idconnect": os.path.join(directory, "idconnect"), "authlink": os.path.join(directory, "authlink-sample")}
    workdir = tempfile.mkdtemp(prefix="idconnect-bench-storage-")
    os.environ["BENCH_TMP"] = workdir
    try:
        results = measure("SQLite", "sqlite:" + os.path.join(workdir, "bench.sqlite"), binaries, options, workdir)
        results += measure("PostgreSQL", postgres_storage(server_url, options.pool), binaries, options, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{options.configuration} build, wrk -t{options.threads} -c{options.connections}, {options.duration} s per scenario")
    for result in results:
        print(f"{result.name:32} {result.requests_per_second:9.0f} req/s  p50 {result.p50_ms:7.2f} ms  "
              f"p99 {result.p99_ms:7.2f} ms  requests {result.requests:7}  errors {result.errors}")
    return 1 if any(result.errors or not result.requests for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
