"""Validate with a small and a large number of stored sessions (docs/benchmarks.md: 10k vs 1M). Two
brokers of their own, one per store size, started for this comparison: real sign-ins make `distinct`
sessions with a token each on both; copies of a session are bulk-inserted straight into each
SQLite file (WAL, so the running broker keeps serving) up to 10,000 and to the large count. Then
validate is measured on the two brokers in turn, twice over — one token again and again, and the
tokens of all the distinct sessions in turn (different rows on every request, as when many users
are active) — and each figure is the mean of its two rounds, the second taken in the opposite
order. Interleaving matters on a shared machine: measured one after the other, a drift in the CPU
the machine gets moved the ratio by ±25% between runs."""

import concurrent.futures
import os
import sqlite3

import broker
import load

SESSION_COLUMNS = ("subject, user_id, app_key, auth_service_id, attributes, upstream, upstream_expires_at, "
                   "auth_time, created_at, expires_at, revoked_at, version")
FAMILY_COLUMNS = "client_id, scope, nonce, created_at, revoked_at"
ROUNDS = 2


def fill(database_path, total):
    """Adds sessions (each with a token family) until the store holds `total`."""
    connection = sqlite3.connect(database_path, timeout=60)
    try:
        present = connection.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        if present >= total:
            return present
        start = present + 1
        connection.execute("BEGIN")
        connection.execute(f"""
            INSERT INTO sessions (id, {SESSION_COLUMNS})
            WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            SELECT 'bench-session-' || i, {SESSION_COLUMNS} FROM n, (SELECT * FROM sessions LIMIT 1)
            """, (start, total))
        connection.execute(f"""
            INSERT INTO token_families (id, session_id, {FAMILY_COLUMNS})
            WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            SELECT 'bench-family-' || i, 'bench-session-' || i, {FAMILY_COLUMNS} FROM n, (SELECT * FROM token_families LIMIT 1)
            """, (start, total))
        connection.execute("COMMIT")
        # Steady state: the rows in the database file, not waiting in the WAL.
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return connection.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    finally:
        connection.close()


def sign_in(port, count):
    """`count` password grants, each a session of its own; returns their access tokens. At most 4
    at once: the login throttle lets 5 attempts for one username be in flight."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda _: broker.password_grant(port, "authlink", "alice", "alicepw")["access_token"],
                             range(count)))


class Store:
    """One broker with its own database, filled to `total` sessions."""

    def __init__(self, binaries, workdir, processes, authlink_port, name, distinct, total):
        directory = os.path.join(workdir, "sessions-" + name)
        self.port = broker.free_port()
        config = broker.write_config(directory, self.port, authlink_port, None)
        env = dict(os.environ, IDCONNECT_LOG_LEVEL="warning")
        server = broker.start([binaries["idconnect"], "serve", "--config", config, "--port", str(self.port)],
                              os.path.join(directory, "broker.log"), env=env)
        processes.append(server)
        broker.wait_until_up(self.port, "/healthz", server)
        self.pid = server.pid
        self.tokens = sign_in(self.port, distinct)
        self.stored = fill(os.path.join(directory, "broker.sqlite"), total)

    def measure(self, common, many):
        load.watch("broker", self.pid)
        options = dict(common, port=self.port)
        if many:
            return load.run_wrk(f"validate (JWT), {self.stored:,} sessions stored, {len(self.tokens):,} sessions in turn",
                                **options, method="GET", path="/oauth/validate", headers={"Authorization": "Bearer {}"},
                                pool=self.tokens, cycle=True)
        return load.run_wrk(f"validate (JWT), {self.stored:,} sessions stored, one session", **options,
                            path="/oauth/validate", headers={"Authorization": "Bearer " + self.tokens[0]})

    def warm_up(self, common):
        load.run_wrk("warm-up", **dict(common, port=self.port, duration=min(common["duration"], 2)), method="GET",
                     path="/oauth/validate", headers={"Authorization": "Bearer {}"}, pool=self.tokens, cycle=True)


def mean(results):
    """One row from several rounds of the same scenario: rates and latencies averaged."""
    first = results[0]
    combined = load.Result(first.name, sum(r.requests_per_second for r in results) / len(results),
                           sum(r.p50_ms for r in results) / len(results), max(r.p99_ms for r in results),
                           sum(r.requests for r in results), sum(r.errors for r in results))
    for label in first.cpu_us:
        values = [r.cpu_us[label] for r in results if label in r.cpu_us]
        combined.cpu_us[label] = round(sum(values) / len(values), 1)
    return vars(combined)


def compare(binaries, workdir, processes, authlink_port, common, large, distinct):
    """Returns {"small": [one, many], "large": [one, many]} (rows as dicts). The broker being
    measured is the watched "broker" meanwhile (its CPU per request); the caller's comes back after."""
    caller = load.watched("broker")
    small = Store(binaries, workdir, processes, authlink_port, "small", distinct, 10_000)
    big = Store(binaries, workdir, processes, authlink_port, "large", distinct, large)
    # The fills leave hundreds of MB of dirty pages: written back during a measurement they cost
    # the broker a fifth of its rate. Flush them, then touch every token once, unmeasured.
    os.sync()
    for store in (small, big):
        store.warm_up(common)
    rounds = {("small", False): [], ("small", True): [], ("large", False): [], ("large", True): []}
    for round_number in range(ROUNDS):
        for many in (False, True):
            # Each pair in the order A B, then B A: a steady drift in the CPU the machine gives
            # the broker then weighs on both sizes alike instead of always on the one measured second.
            pair = (("small", small), ("large", big))
            for name, store in (pair if round_number % 2 == 0 else pair[::-1]):
                rounds[(name, many)].append(store.measure(common, many))
    load.watch("broker", caller)
    return {name: [mean(rounds[(name, False)]), mean(rounds[(name, True)])] for name in ("small", "large")}
