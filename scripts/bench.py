#!/usr/bin/env python3
"""The benchmark suite (docs/benchmarks.md): starts the broker (release build) on a temporary config
with the sample AuthLink, loads it over loopback with wrk, and prints one table with the baselines
and the ratios that matter. `--smoke` runs every scenario for a moment on the debug build (CI keeps
it working); the numbers of a smoke run mean nothing.

    scripts/bench.py                 # full run, ~15 minutes
    scripts/bench.py --smoke         # ~1 minute, exits 1 when a scenario fails
    scripts/bench.py --only password # the password-grant rows alone (with --smoke: on the debug build)

The LDAP rows run against the slapd named by IDCONNECT_LDAP_URL, or else against a slapd of the
run's own (scripts/peers/ldap-start.sh on free ports, stopped at the end). The side-by-side rows run
the same four loads against the broker and against a Glewlwyd of the run's own
(scripts/bench/glewlwyd-start.sh, SQLite, stopped at the end); without glewlwyd installed they
are left out with a note.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
import broker  # noqa: E402
import device  # noqa: E402
import dpop  # noqa: E402
import exchange  # noqa: E402
import glewlwyd_peer  # noqa: E402
import load  # noqa: E402
import mfa  # noqa: E402
import report  # noqa: E402
import sessions  # noqa: E402
import streaming  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="every scenario briefly, on the debug build")
    parser.add_argument("--duration", type=int, help="seconds per scenario (default 10, smoke 1)")
    parser.add_argument("--connections", type=int, default=32, help="concurrent connections (default 32)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--large-sessions", type=int, help="sessions for the large-store run (default 1,000,000)")
    parser.add_argument("--pbkdf2-iterations", type=int, default=10_000,
                        help="PBKDF2-SHA256 rounds of the password hashes on both sides of the Glewlwyd comparison "
                             "(default 10,000, the least the static connector accepts)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    parser.add_argument("--json", help="also write the results as JSON to this file")
    parser.add_argument("--only", choices=["password"], help="run only these rows (the AuthLink and the broker, nothing else)")
    options = parser.parse_args()
    if options.pbkdf2_iterations < 10_000:
        parser.error("--pbkdf2-iterations must be at least 10000 (the static connector's minimum)")
    duration = options.duration or (1 if options.smoke else 10)
    configuration = "debug" if options.smoke else "release"
    large = options.large_sessions or (20_000 if options.smoke else 1_000_000)
    pool_size = 200 if options.smoke else 8_000

    binaries = build(configuration, options.no_build)
    workdir = tempfile.mkdtemp(prefix="idconnect-bench-")
    os.environ["BENCH_TMP"] = workdir
    processes, cleanups = [], []
    try:
        results, extras = run(binaries, workdir, processes, cleanups, duration, options, large, pool_size)
    finally:
        for cleanup in cleanups:
            cleanup()
        for process in processes:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(workdir, ignore_errors=True)
    print(report.table(results, extras, configuration, options) if extras is not None
          else report.rows_only(results, configuration, options))
    if options.json:
        with open(options.json, "w") as handle:
            json.dump({"results": [vars(result) for result in results], "extras": extras}, handle, indent=1)
    failed = [result.name for result in results if result.errors > 0 or result.requests == 0]
    # Glewlwyd's own errors are counted under its table (a load it never answers stops the run).
    failed += [row["ours"]["name"] for row in (extras or {}).get("glewlwyd", {}).get("rows", []) if row["ours"]["errors"]]
    if failed:
        print("scenarios with errors: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


def build(configuration, skip):
    swift = shutil.which("swift") or "/opt/swift/usr/bin/swift"
    if not skip:
        for product in ("idconnect", "authlink-sample"):
            subprocess.run([swift, "build", "-c", configuration, "--product", product], cwd=ROOT, check=True)
    directory = os.path.join(ROOT, ".build", configuration)
    return {"idconnect": os.path.join(directory, "idconnect"), "authlink": os.path.join(directory, "authlink-sample")}


def run(binaries, workdir, processes, cleanups, duration, options, large, pool_size):
    authlink_port, port = broker.free_port(), broker.free_port()
    users = broker.authlink_users_file(workdir, os.path.join(ROOT, "Connectors", "AuthLinkSample", "users.json"), mfa.USERS)
    processes.append(broker.start([binaries["authlink"], "--port", str(authlink_port), "--users", users],
                                  os.path.join(workdir, "authlink.log")))
    broker.wait_until_up(authlink_port, "/", processes[-1])
    common = dict(duration=duration, connections=options.connections, threads=options.threads)
    if options.only == "password":
        config = broker.write_config(workdir, port, authlink_port, None)
        serve(binaries, config, port, workdir, processes)
        return password_rows(dict(common, port=port)), None
    ldap = ldap_settings(workdir, cleanups)
    backend, backend_port = streaming.start_backend(10 if options.smoke else 100)
    cleanups.append(backend.shutdown)
    config = broker.write_config(workdir, port, authlink_port, ldap, extra_services=[mfa.auth_service(authlink_port)],
                                 data_links=[{"name": "stream", "url": f"http://127.0.0.1:{backend_port}", "timeout": 300}])
    server = serve(binaries, config, port, workdir, processes)

    jwt = broker.password_grant(port, "authlink", "alice", "alicepw")
    opaque = broker.password_grant(port, "authlink-opaque", "alice", "alicepw")
    bearer = {"Authorization": "Bearer " + jwt["access_token"]}
    basic = {"Authorization": broker.basic_header()}
    common = dict(common, port=port)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    results = [
        load.run_wrk("static route /healthz (HTTP floor)", **common, path="/healthz"),
        load.run_wrk("validate (JWT)", **common, path="/oauth/validate", headers=bearer),
        load.run_wrk("validate (opaque)", **common, path="/oauth/validate",
                     headers={"Authorization": "Bearer " + opaque["access_token"]}),
        load.run_wrk("introspect (JWT)", **common, method="POST", path="/oauth/introspect", headers={**basic, **form},
                     body="token=" + jwt["access_token"]),
        load.run_wrk("introspect (opaque)", **common, method="POST", path="/oauth/introspect",
                     headers={**basic, **form}, body="token=" + opaque["access_token"]),
        # Issue 26: discovery and the JWKS at 90% of the floor or more (answered from bytes made
        # once, below the router).
        load.run_wrk("discovery (openid-configuration)", **common, path="/.well-known/openid-configuration"),
        load.run_wrk("JWKS", **common, path="/.well-known/jwks.json"),
        # The floor again: the rows above are divided by the mean of the two, as the signing limit
        # is measured around the exchange and refresh rows, so that a drift of the machine's speed
        # within the minute they take weighs on both sides of each ratio alike.
        load.run_wrk("static route /healthz (HTTP floor, again)", **common, path="/healthz"),
        load.run_wrk("data-link gateway (→ /healthz)", **common, path="/datalink/self/healthz", headers=bearer),
    ]
    results += gateway_rows(port, authlink_port, common, bearer)
    codes = prepare(pool_size, lambda _: broker.authorization_code(port, "authlink", "alice", "alicepw"))
    # The signing limit is the yardstick of the exchange and refresh rows, and it moves with the
    # machine (2,893–4,016/s across runs): measured right before and right after those rows.
    signing_before = signing(binaries)
    results.append(load.run_wrk(
        "code exchange", **common, method="POST", path="/oauth/token", headers={**basic, **form}, pool=codes,
        body=f"grant_type=authorization_code&client_id={broker.APP_KEY}&redirect_uri={broker.REDIRECT_URI}&code={{}}"))
    refresh_tokens = prepare(pool_size, lambda _: broker.password_grant(port, "authlink", "alice", "alicepw")["refresh_token"])
    results.append(load.run_wrk("refresh (rotating)", **common, method="POST", path="/oauth/token",
                                headers={**basic, **form}, pool=refresh_tokens,
                                body="grant_type=refresh_token&refresh_token={}"))
    signing_after = signing(binaries)
    results += qr_rows(port, common, pool_size)
    results += device.rows(port, common, pool_size // 2, prepare)
    results += exchange.rows(port, common, jwt["access_token"])
    results += dpop.rows(port, common, pool_size // 2, prepare)
    results += login_rows(port, authlink_port, common, form, pool_size, ldap)
    results += password_rows(common)
    results += es256_rows(binaries, workdir, processes, authlink_port, common, pool_size // 2)
    extras = {"peak_rss_mb": round(broker.peak_rss_mb(server.pid), 1), "signing": signing_around(signing_before, signing_after),
              "saml": saml_verification(binaries), "executors": executors(binaries)}
    if ldap:
        extras["ldap_raw"] = ldap_raw(workdir, ldap["url"], duration)
    extras["streaming"] = streaming.measure(port, server.pid, backend_port, "stream", jwt["access_token"],
                                            10 if options.smoke else 100, 8 if options.smoke else 30)
    extras["mfa"] = mfa.measure(port, mfa.USERS[:20] if options.smoke else mfa.USERS)
    extras["peak_rss_mb"] = round(broker.peak_rss_mb(server.pid), 1)
    extras["sessions"] = sessions.compare(binaries, workdir, processes, authlink_port, common, large,
                                          50 if options.smoke else 5_000)
    peer = glewlwyd_rows(binaries, workdir, processes, cleanups, authlink_port, common, options.pbkdf2_iterations)
    if peer:
        extras["glewlwyd"] = peer
    return results, extras


def serve(binaries, config, port, workdir, processes):
    """Starts the broker on `config`; returns its process, whose CPU (and the AuthLink's, the
    connector and the gateway's backend) is read beside every row: steadier than req/s when the
    machine's share of the CPU drifts."""
    env = dict(os.environ, IDCONNECT_LOG_LEVEL="warning")
    server = broker.start([binaries["idconnect"], "serve", "--config", config, "--port", str(port)],
                          os.path.join(workdir, "broker.log"), env=env)
    processes.append(server)
    broker.wait_until_up(port, "/healthz", server)
    load.watch("broker", server.pid)
    load.watch("authlink", processes[0].pid)
    return server


def password_rows(common):
    """The password grant against the AuthLink: round the 64 bench users, and every connection
    signing in one user at once, as a back end's workers sharing a service account do. A refusal
    (the login throttle refusing a correct password) is an error, which fails the run."""
    basic = {"Authorization": broker.basic_header(), "Content-Type": "application/x-www-form-urlencoded"}
    body = f"grant_type=password&client_id={broker.client_id('authlink')}&username={{}}&password={broker.BENCH_PASSWORD}"
    connections = common["connections"]
    return [
        load.run_wrk(f"password grant, 64 users in turn, {connections} conn.", **common, method="POST", path="/oauth/token",
                     headers=basic, body=body, pool=list(broker.BENCH_USERS), cycle=True),
        load.run_wrk(f"password grant, one user on every connection, {connections} conn.", **common, method="POST",
                     path="/oauth/token", headers=basic, body=body, pool=broker.BENCH_USERS[:1] * 64, cycle=True),
    ]


def glewlwyd_rows(binaries, workdir, processes, cleanups, authlink_port, common, iterations):
    """The same four loads against a broker and a Glewlwyd, both started fresh for this comparison
    (the broker with a `static` auth service of glewlwyd_peer.USERNAMES and registration of app
    instances; Glewlwyd by glewlwyd-start.sh, stopped by `cleanups`), one after the other per load
    so that a drift in the machine's CPU share hits both alike. A broker of its own because the
    main one's login throttle still counts the refused attempts of the sign-in rows against
    127.0.0.1. None, with a note, when glewlwyd is not installed."""
    if not glewlwyd_peer.installed():
        print("glewlwyd is not installed (scripts/install-deps.sh installs it): the side-by-side rows are left out",
              file=sys.stderr)
        return None
    directory = os.path.join(workdir, "side-by-side")
    os.makedirs(directory)
    port, statement_key, comparison_pid = start_comparison_broker(binaries, directory, processes, authlink_port, iterations)
    # Glewlwyd's connections commit with SQLite's default synchronous=FULL, an fsync per commit
    # (the broker: WAL with synchronous=NORMAL, none); on tmpfs those cost nothing, so the rows
    # compare request handling, not the disk.
    shm = None
    if os.access("/dev/shm", os.W_OK):
        shm = tempfile.mkdtemp(prefix="idconnect-bench-glewlwyd-", dir="/dev/shm")
    peer_directory = os.path.join(directory, "glewlwyd")

    def cleanup():
        glewlwyd_peer.stop(peer_directory)
        if shm:
            shutil.rmtree(shm, ignore_errors=True)

    cleanups.append(cleanup)  # before the start: one that fails halfway leaves a pid file
    database = os.path.join(shm or peer_directory, "glewlwyd.sqlite3")
    started = glewlwyd_peer.start(peer_directory, iterations, database)
    peer_port = started["PORT"]
    glewlwyd_peer.check(peer_port)
    # Each side's CPU per request: the comparison broker's and Glewlwyd's.
    load.watch("authlink", None)
    load.watch("broker", comparison_pid)
    load.watch("glewlwyd", int(started["PID"]))
    ours, theirs = our_loads(port, statement_key), glewlwyd_loads(peer_port)
    rows = []
    for load_name in ours:
        measured = {}
        for side, loads, side_port in (("ours", ours, port), ("glewlwyd", theirs, peer_port)):
            settings = dict(common, port=side_port)
            measured[side] = vars(load.run_wrk(f"{load_name} ({side})", **settings, **loads[load_name]))
        ratio = measured["ours"]["requests_per_second"] / max(measured["glewlwyd"]["requests_per_second"], 1e-9)
        rows.append({"load": load_name, **measured, "ratio": round(ratio, 3)})
    return {"version": glewlwyd_peer.version(), "pbkdf2_iterations": iterations, "database_on_tmpfs": bool(shm),
            "rows": rows}


def start_comparison_broker(binaries, directory, processes, authlink_port, iterations):
    """Returns (port, the PEM file that signs its software statements, its pid)."""
    port = broker.free_port()
    statement_key, jwks = broker.statement_key(directory)
    users = [broker.static_user(name, glewlwyd_peer.PASSWORD, iterations) for name in glewlwyd_peer.USERNAMES]
    config = broker.write_config(directory, port, authlink_port, None, users, jwks)
    server = broker.start([binaries["idconnect"], "serve", "--config", config, "--port", str(port)],
                          os.path.join(directory, "broker.log"), env=dict(os.environ, IDCONNECT_LOG_LEVEL="warning"))
    processes.append(server)
    broker.wait_until_up(port, "/healthz", server)
    return port, statement_key, server.pid


PASSWORD_POOL = dict(pool=glewlwyd_peer.USERNAMES, cycle=True)  # round the 64 users: `{}` is the username


def our_loads(port, statement_key):
    """The broker's side: RFC 7662 introspection of a JWT access token, the password grant against
    the `static` auth service (a PBKDF2 check per request), client_credentials of an app instance
    registered with a statement signed by `statement_key` and bound to alice, and discovery."""
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    app = {"Authorization": broker.basic_header(), **form}
    client, secret = broker.register_instance(port, statement_key, "alice", "alicepw")
    instance_basic = {"Authorization": broker.basic_header_for(client, secret), **form}
    token = broker.password_grant(port, "static", glewlwyd_peer.USERNAMES[0], glewlwyd_peer.PASSWORD,
                                  scope="profile")["access_token"]
    password_body = (f"grant_type=password&client_id={broker.client_id('static')}&username={{}}"
                     f"&password={glewlwyd_peer.PASSWORD}&scope=profile")
    return {
        "introspection": dict(method="POST", path="/oauth/introspect", headers=app,
                              body=f"token={token}&token_type_hint=access_token"),
        "password grant": dict(method="POST", path="/oauth/token", headers=app, body=password_body, **PASSWORD_POOL),
        "client_credentials": dict(method="POST", path="/oauth/token", headers=instance_basic,
                                   body="grant_type=client_credentials&scope=profile"),
        "discovery": dict(method="GET", path="/.well-known/openid-configuration"),
    }


def glewlwyd_loads(port):
    return {
        "introspection": glewlwyd_peer.introspection_args(glewlwyd_peer.access_token(port)),
        "password grant": dict(glewlwyd_peer.password_grant_args(), **PASSWORD_POOL),
        "client_credentials": glewlwyd_peer.client_credentials_args(),
        "discovery": glewlwyd_peer.discovery_args(),
    }


def login_rows(port, authlink_port, common, form, pool_size, ldap):
    """Sign-ins through the automated grant (the credential post of a prepared temp login URI),
    under load and one at a time, beside the connector called directly. Concurrent sign-ins go
    round several users (the login throttle lets 5 attempts of one username be in flight); a
    sign-in answered with an error redirect counts as an error (pool.lua)."""
    body = "client_id={client}&redirect_uri=" + broker.REDIRECT_URI + "&response_type=code&username={{}}"
    rows = []
    services = [("AuthLink", "authlink", [(name, broker.BENCH_PASSWORD) for name in broker.BENCH_USERS], common["connections"])]
    if ldap:
        # Four directory users: at most 12 sign-ins in flight keeps each under the throttle's 5.
        services.append(("LDAP", "ldap", ldap["users"], min(common["connections"], 12)))
    for label, service, users, in_flight in services:
        filled = body.format(client=broker.client_id(service))
        for connections in (in_flight, 1):
            paths = prepare(pool_size // 2, lambda _: broker.temp_login_path(port, service))
            # "path user&password=…": pool.lua puts the first part in the path, the second in the body.
            pool = [f"{path} {users[index % len(users)][0]}&password={users[index % len(users)][1]}"
                    for index, path in enumerate(paths)]
            settings = dict(common, connections=connections, threads=min(common["threads"], connections))
            rows.append(load.run_wrk(f"login via {label} (automated grant), {connections} conn.", **settings,
                                     method="POST", path="{}", headers=form, body=filled, pool=pool))
    json_headers = {"Content-Type": "application/json"}
    credentials = json.dumps({"username": "alice", "password": "alicepw"})
    for connections in (common["connections"], 1):
        settings = dict(common, port=authlink_port, connections=connections, threads=min(common["threads"], connections))
        rows.append(load.run_wrk(f"AuthLink called directly (connector floor), {connections} conn.", **settings,
                                 method="POST", path="/login", headers=json_headers, body=credentials))
    return rows


def gateway_rows(port, authlink_port, common, bearer):
    """The gateway in front of a backend in a process of its own (the sample AuthLink's POST
    /login, a small JSON API) beside the same call made directly: req/s under load, and p50 one
    at a time (what the gateway adds to a call)."""
    json_headers = {"Content-Type": "application/json"}
    credentials = json.dumps({"username": "alice", "password": "alicepw"})
    rows = []
    for connections in (common["connections"], 1):
        settings = dict(common, connections=connections, threads=min(common["threads"], connections))
        rows.append(load.run_wrk(f"backend called directly (AuthLink POST /login), {connections} conn.",
                                 **dict(settings, port=authlink_port), method="POST", path="/login",
                                 headers=json_headers, body=credentials))
        rows.append(load.run_wrk(f"data-link gateway (→ AuthLink POST /login), {connections} conn.", **settings,
                                 method="POST", path="/datalink/authlink/login", headers={**bearer, **json_headers},
                                 body=credentials))
    return rows


def es256_rows(binaries, workdir, processes, authlink_port, common, pool_size):
    """Code exchange and refresh on a broker of its own that signs with ES256 (P-256)."""
    directory = os.path.join(workdir, "es256")
    os.makedirs(directory)
    port = broker.free_port()
    config = broker.write_config(directory, port, authlink_port, None, signing="ES256")
    server = broker.start([binaries["idconnect"], "serve", "--config", config, "--port", str(port)],
                          os.path.join(directory, "broker.log"), env=dict(os.environ, IDCONNECT_LOG_LEVEL="warning"))
    processes.append(server)
    broker.wait_until_up(port, "/healthz", server)
    main_broker = load.watched("broker")
    load.watch("broker", server.pid)
    basic = {"Authorization": broker.basic_header(), "Content-Type": "application/x-www-form-urlencoded"}
    settings = dict(common, port=port)
    codes = prepare(pool_size, lambda _: broker.authorization_code(port, "authlink", "alice", "alicepw"))
    exchange = load.run_wrk(
        "code exchange (ES256)", **settings, method="POST", path="/oauth/token", headers=basic, pool=codes,
        body=f"grant_type=authorization_code&client_id={broker.APP_KEY}&redirect_uri={broker.REDIRECT_URI}&code={{}}")
    tokens = prepare(pool_size, lambda _: broker.password_grant(port, "authlink", "alice", "alicepw")["refresh_token"])
    refresh = load.run_wrk("refresh (rotating, ES256)", **settings, method="POST", path="/oauth/token", headers=basic,
                           pool=tokens, body="grant_type=refresh_token&refresh_token={}")
    load.watch("broker", main_broker)
    return [exchange, refresh]


def qr_rows(port, common, pool_size):
    """The QR-login mobile API: the app reading what asks to sign in (info, codes round and round)
    and confirming (each code once), with a token that has the QR scope."""
    token = broker.password_grant(port, "authlink", "alice", "alicepw", scope="openid blitz_qr_auth")["access_token"]
    bearer = {"Authorization": "Bearer " + token}
    codes = prepare(pool_size // 2, lambda _: broker.qr_code(port, "authlink"))
    info = load.run_wrk("QR login: info", **common, path="{}", headers=bearer, cycle=True,
                        pool=[f"/api/v3/auth/qr/{code}" for code in codes[: max(1, len(codes) // 8)]])
    confirm = load.run_wrk("QR login: confirm", **common, method="POST", path="{}", headers=bearer,
                           pool=[f"/api/v3/auth/qr/{code}/confirm" for code in codes])
    return [info, confirm]


def prepare(count, make):
    # At most 4 at once: the login throttle lets 5 attempts for one username be in flight (it
    # counts before the identity source answers, and a success clears the count).
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(make, range(count)))


def signing(binaries):
    output = subprocess.run([binaries["idconnect"], "bench", "signing", "--seconds", "2"],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def signing_around(before, after):
    """The mean of two signing measurements taken around the rows they are the yardstick of,
    with both kept (`runs`)."""
    rates = {name: round((before["signs_per_second"][name] + after["signs_per_second"][name]) / 2)
             for name in before["signs_per_second"]}
    return dict(before, signs_per_second=rates, runs=[before["signs_per_second"], after["signs_per_second"]])


def saml_verification(binaries):
    output = subprocess.run([binaries["idconnect"], "bench", "saml", "--seconds", "2"],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def executors(binaries):
    """`idconnect bench executor` under each IDCONNECT_EXECUTOR: queue trips and time per chain
    of forty nonisolated async calls (docs/operations.md)."""
    measured = {}
    for choice in ("nio", "loops", "adaptive", "swift"):
        output = subprocess.run([binaries["idconnect"], "bench", "executor"], capture_output=True, text=True,
                                check=True, env=dict(os.environ, IDCONNECT_EXECUTOR=choice)).stdout
        measured[choice] = json.loads(output.strip().splitlines()[-1])
    return measured


def ldap_raw(workdir, url, duration):
    """slapd called directly with libldap (scripts/bench/ldap-raw.c, 2 threads): simple binds/s and
    the full work of one broker login (search user, search groups, bind) per second."""
    binary = os.path.join(workdir, "ldap-raw")
    subprocess.run(["cc", "-O2", "-o", binary, os.path.join(ROOT, "scripts", "bench", "ldap-raw.c"),
                    "-lldap", "-llber", "-lpthread"], check=True)
    def measure(mode, threads):
        output = subprocess.run([binary, url, mode, str(threads), str(duration)],
                                capture_output=True, text=True, check=True).stdout.split()
        return float(output[0]), float(output[1]), float(output[2])

    one_at_a_time = measure("login", 1)
    return {"binds_per_second": measure("bind", 2)[0], "logins_per_second": measure("login", 2)[0],
            "login_p50_ms_one_at_a_time": one_at_a_time[1], "login_p99_ms_one_at_a_time": one_at_a_time[2]}


def ldap_settings(workdir, cleanups):
    """An LDAP auth service (search then bind with the read-only service account, groups) against
    the slapd IDCONNECT_LDAP_URL names, or else a slapd of its own started by
    scripts/peers/ldap-start.sh in the work directory (stopped by `cleanups` at the end); None,
    with a note, when neither is possible (slapd not installed)."""
    url = os.environ.get("IDCONNECT_LDAP_URL")
    if not url:
        url = start_slapd(os.path.join(workdir, "ldap"), cleanups)
    if not url:
        return None
    # scripts/peers/ldap-start.sh's people (the slapd of PEERS.md and of this run alike).
    people = [(name, name + "pw") for name in ("alice", "bob", "carol", "dave")]
    return {"url": url, "username": "alice", "password": "alicepw", "users": people,
            "authentication": {"username": "cn=readonly,dc=example,dc=org", "password": "readonlypw"},
            "options": json.loads(os.environ.get("IDCONNECT_BENCH_LDAP_OPTIONS",
                                                 '{"baseDn": "ou=people,dc=example,dc=org", '
                                                 '"groupBaseDn": "ou=groups,dc=example,dc=org"}'))}


def start_slapd(directory, cleanups):
    if not shutil.which("slapd") and not os.path.exists("/usr/sbin/slapd"):
        print("slapd is not installed (scripts/install-deps.sh installs it): the LDAP rows are left out",
              file=sys.stderr)
        return None
    port, tls_port = broker.free_port(), broker.free_port()
    env = dict(os.environ, LDAP_DIR=directory, LDAP_PORT=str(port), LDAPS_PORT=str(tls_port),
               PATH=os.environ.get("PATH", "") + ":/usr/sbin")
    # Registered first: a start that fails halfway still leaves a pid file to stop.
    cleanups.append(lambda: subprocess.run([os.path.join(ROOT, "scripts", "peers", "ldap-stop.sh")], env=env))
    subprocess.run([os.path.join(ROOT, "scripts", "peers", "ldap-start.sh")], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return f"ldap://127.0.0.1:{port}"


if __name__ == "__main__":
    sys.exit(main())
