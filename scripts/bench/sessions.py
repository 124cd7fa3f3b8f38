"""Validate with a small and a large number of stored sessions, on a broker of its own started for
this comparison (so both figures are taken back to back under the same conditions, not minutes
apart on a broker the other scenarios have loaded). Real sign-ins make `distinct` sessions with a
token each; copies of a session are bulk-inserted straight into its SQLite file (WAL, so the
running broker keeps serving) up to 10,000, and validate is measured twice: one token again and
again, and the tokens of all the distinct sessions in turn (different rows on every request, as
when many users are active). Then the store is filled to the large count and both are measured
again."""

import concurrent.futures
import os
import sqlite3

import broker
import load

SESSION_COLUMNS = ("subject, user_id, app_key, auth_service_id, attributes, upstream, upstream_expires_at, "
                   "auth_time, created_at, expires_at, revoked_at, version")
FAMILY_COLUMNS = "client_id, scope, nonce, created_at, revoked_at"


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


def measure(workdir, common, tokens, total):
    """Fills the store to `total` sessions and measures validate with one token and with every
    token in turn; returns the two rows as dicts."""
    stored = fill(os.path.join(workdir, "broker.sqlite"), total)
    # The fill leaves hundreds of MB of dirty pages: written back during a measurement they cost
    # the broker a fifth of its rate. Flush them, then warm up on every token once, unmeasured.
    os.sync()
    load.run_wrk("warm-up", **dict(common, duration=min(common["duration"], 2)), method="GET", path="/oauth/validate",
                 headers={"Authorization": "Bearer {}"}, pool=tokens, cycle=True)
    one = load.run_wrk(f"validate (JWT), {stored:,} sessions stored, one session", **common,
                       path="/oauth/validate", headers={"Authorization": "Bearer " + tokens[0]})
    many = load.run_wrk(f"validate (JWT), {stored:,} sessions stored, {len(tokens):,} sessions in turn", **common,
                        method="GET", path="/oauth/validate", headers={"Authorization": "Bearer {}"},
                        pool=tokens, cycle=True)
    return [vars(one), vars(many)]


def sign_in(port, count):
    """`count` password grants, each a session of its own; returns their access tokens."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(lambda _: broker.password_grant(port, "authlink", "alice", "alicepw")["access_token"],
                             range(count)))


def compare(binaries, workdir, processes, authlink_port, common, large, distinct):
    """Starts a fresh broker beside the main one and returns {"small": [rows], "large": [rows]}."""
    directory = os.path.join(workdir, "sessions")
    port = broker.free_port()
    config = broker.write_config(directory, port, authlink_port, None)
    env = dict(os.environ, IDCONNECT_LOG_LEVEL="warning")
    server = broker.start([binaries["idconnect"], "serve", "--config", config, "--port", str(port)],
                          os.path.join(directory, "broker.log"), env=env)
    processes.append(server)
    broker.wait_until_up(port, "/healthz", server)
    tokens = sign_in(port, distinct)
    options = dict(common, port=port)
    small = measure(directory, options, tokens, 10_000)
    return {"small": small, "large": measure(directory, options, tokens, large)}
