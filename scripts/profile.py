#!/usr/bin/env python3
"""Where the broker spends its CPU under one benchmark load (docs/benchmarks.md, "Profiles").

    scripts/profile.py floor|validate|validate-many|validate-opaque|introspect|introspect-inactive|introspect-opaque|exchange|refresh|gateway|discovery|password|login [--seconds 10] [--signing ES256]

Starts the sample AuthLink and the release build of the broker as scripts/bench.py does, puts the
load on it with wrk, records the broker with `perf record -g` meanwhile, and prints the hottest
functions (self time, Swift names demangled) and the hottest call chains into them. Needs `perf`
(Debian package `linux-perf`) and a release build (`swift build -c release`).
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
import broker  # noqa: E402
import load  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def scenario(name, port, pool_size):
    """The wrk arguments of one load (as scripts/bench.py runs it)."""
    basic = {"Authorization": broker.basic_header()}
    if name in ("validate", "gateway", "introspect"):
        token = broker.password_grant(port, "authlink", "alice", "alicepw")["access_token"]
    if name == "floor":
        return dict(path="/healthz")
    if name == "validate":
        return dict(path="/oauth/validate", headers={"Authorization": "Bearer " + token})
    if name == "validate-many":
        # 5,000 sessions' tokens in turn, as the bench's "sessions in turn" rows: different rows
        # and memo entries on every request, as when many users are active.
        tokens = prepare(5_000, lambda _: broker.password_grant(port, "authlink", "alice", "alicepw")["access_token"])
        return dict(path="/oauth/validate", headers={"Authorization": "Bearer {}"}, pool=tokens, cycle=True)
    if name == "validate-opaque":
        token = broker.password_grant(port, "authlink-opaque", "alice", "alicepw")["access_token"]
        return dict(path="/oauth/validate", headers={"Authorization": "Bearer " + token})
    if name == "introspect":
        return dict(method="POST", path="/oauth/introspect", headers={**basic, **FORM}, body="token=" + token)
    if name == "introspect-inactive":
        # Introspection without the token work: client authentication, the form and a short answer.
        return dict(method="POST", path="/oauth/introspect", headers={**basic, **FORM}, body="token=" + "x" * 40)
    if name == "introspect-opaque":
        token = broker.password_grant(port, "authlink-opaque", "alice", "alicepw")["access_token"]
        return dict(method="POST", path="/oauth/introspect", headers={**basic, **FORM}, body="token=" + token)
    if name == "gateway":
        return dict(path="/datalink/self/healthz", headers={"Authorization": "Bearer " + token})
    if name == "discovery":
        return dict(path="/.well-known/openid-configuration")
    if name == "exchange":
        codes = prepare(pool_size, lambda _: broker.authorization_code(port, "authlink", "alice", "alicepw"))
        return dict(method="POST", path="/oauth/token", headers={**basic, **FORM}, pool=codes,
                    body=f"grant_type=authorization_code&client_id={broker.APP_KEY}&redirect_uri={broker.REDIRECT_URI}&code={{}}")
    if name == "refresh":
        tokens = prepare(pool_size, lambda _: broker.password_grant(port, "authlink", "alice", "alicepw")["refresh_token"])
        return dict(method="POST", path="/oauth/token", headers={**basic, **FORM}, pool=tokens,
                    body="grant_type=refresh_token&refresh_token={}")
    if name == "password":
        # The password grant round the bench users (the login throttle lets 5 of one username be in flight).
        body = (f"grant_type=password&client_id={broker.client_id('authlink')}&username={{}}"
                f"&password={broker.BENCH_PASSWORD}")
        return dict(method="POST", path="/oauth/token", headers={**basic, **FORM}, body=body,
                    pool=list(broker.BENCH_USERS), cycle=True)
    if name == "login":
        paths = prepare(pool_size // 4, lambda _: broker.temp_login_path(port, "authlink"))
        users = broker.BENCH_USERS
        pool = [f"{path} {users[index % len(users)]}&password={broker.BENCH_PASSWORD}" for index, path in enumerate(paths)]
        body = (f"client_id={broker.client_id('authlink')}&redirect_uri={broker.REDIRECT_URI}"
                "&response_type=code&username={}")
        return dict(method="POST", path="{}", headers=FORM, body=body, pool=pool)
    raise SystemExit(f"unknown scenario {name}")


def prepare(count, make):
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:  # the login throttle allows 5 in flight
        return list(pool.map(make, range(count)))


def report(data, workdir, system_wide=False):
    demangle = [shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle", "--simplified"]

    def perf_report(*arguments):
        text = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-header", *arguments],
                              capture_output=True, text=True, check=True).stdout
        return subprocess.run(demangle, input=text, capture_output=True, text=True).stdout

    if system_wide:
        print("== CPU by command (all processes)")
        lines = [line for line in perf_report("--no-children", "-g", "none", "--sort", "comm", "--percent-limit", "0.5")
                 .splitlines() if line.strip() and not line.startswith("#")]
        print("\n".join(lines[:15]))
    print("== hottest functions (self time)")
    lines = [line for line in perf_report("--no-children", "-g", "none", "--sort", "dso,symbol", "--percent-limit", "0.7")
             .splitlines() if line.strip() and not line.startswith("#")]
    print("\n".join(line[:160] for line in lines[:40]))
    print("\n== hottest call chains (callers, inclusive time)")
    chains = perf_report("--children", "-g", "caller,0.5,callee,function,percent", "--sort", "symbol", "--percent-limit", "4")
    path = os.path.join(workdir, "chains.txt")
    with open(path, "w") as handle:
        handle.write(chains)
    print("\n".join(line[:160] for line in chains.splitlines()[:120] if line.strip() and not line.startswith("#")))


def start_broker(workdir, binary, processes, signing=None):
    """Starts the sample AuthLink and `binary` (`idconnect serve` on the bench configuration, signing
    with `signing` when given) with their data in `workdir`, appends both to `processes` (to stop),
    and returns the broker's port."""
    authlink_port, port = broker.free_port(), broker.free_port()
    users = broker.authlink_users_file(workdir, os.path.join(ROOT, "Connectors", "AuthLinkSample", "users.json"), [])
    processes.append(broker.start([os.path.join(ROOT, ".build", "release", "authlink-sample"),
                                   "--port", str(authlink_port), "--users", users],
                                  os.path.join(workdir, "authlink.log")))
    broker.wait_until_up(authlink_port, "/", processes[-1])
    config = broker.write_config(workdir, port, authlink_port, None, signing=signing)
    processes.append(broker.start([binary, "serve", "--config", config, "--port", str(port)],
                                  os.path.join(workdir, "broker.log"), env=dict(os.environ, IDCONNECT_LOG_LEVEL="warning")))
    broker.wait_until_up(port, "/healthz", processes[-1])
    return port


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--keep", action="store_true", help="keep the work directory (perf.data, logs)")
    parser.add_argument("--signing", choices=["RS256", "ES256"],
                        help="the broker's signing algorithm (ES256: see the exchange or refresh without RSA's share)")
    parser.add_argument("--system-wide", action="store_true",
                        help="record every process (wrk, the AuthLink, the kernel) and report by command first")
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="idconnect-profile-")
    os.environ["BENCH_TMP"] = workdir
    processes = []
    try:
        port = start_broker(workdir, os.path.join(ROOT, ".build", "release", "idconnect"), processes, options.signing)
        arguments = scenario(options.scenario, port, 2_000 * options.seconds)
        data = os.path.join(workdir, "perf.data")
        results = []
        loader = threading.Thread(target=lambda: results.append(load.run_wrk(
            options.scenario, port=port, duration=options.seconds, connections=options.connections,
            threads=min(2, options.connections), **arguments)))
        loader.start()
        target = ["-a"] if options.system_wide else ["-p", str(processes[-1].pid)]
        subprocess.run(["perf", "record", "-q", "-F", "997", "-g", "-o", data, *target, "--",
                        "sleep", str(max(1, options.seconds - 1))], check=True, capture_output=True)
        loader.join()
        result = results[0]
        print(f"{options.scenario}: {result.requests_per_second:,.0f} req/s, p50 {result.p50_ms:.2f} ms, "
              f"p99 {result.p99_ms:.2f} ms, errors {result.errors} (under perf: a little slower than without)")
        report(data, workdir, options.system_wide)
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=15)
        if options.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
