"""Validate with a small and a large number of stored sessions, on a broker of its own started for
this comparison (so both figures are taken back to back under the same conditions, not minutes
apart on a broker the other scenarios have loaded): copies of its session are bulk-inserted
straight into its SQLite file (WAL, so the running broker keeps serving), validate is measured
with 10,000 sessions stored, the store is filled to the large count, and validate is measured again."""

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


def measure(workdir, common, bearer, total):
    """Fills the store to `total` sessions and measures validate; returns the row as a dict."""
    stored = fill(os.path.join(workdir, "broker.sqlite"), total)
    result = load.run_wrk(f"validate (JWT), {stored:,} sessions stored", **common, path="/oauth/validate", headers=bearer)
    return vars(result)


def compare(binaries, workdir, processes, authlink_port, common, large):
    """Starts a fresh broker beside the main one and returns {"small": row, "large": row}."""
    directory = os.path.join(workdir, "sessions")
    port = broker.free_port()
    config = broker.write_config(directory, port, authlink_port, None)
    env = dict(os.environ, IDCONNECT_LOG_LEVEL="warning")
    server = broker.start([binaries["idconnect"], "serve", "--config", config, "--port", str(port)],
                          os.path.join(directory, "broker.log"), env=env)
    processes.append(server)
    broker.wait_until_up(port, "/healthz", server)
    bearer = {"Authorization": "Bearer " + broker.password_grant(port, "authlink", "alice", "alicepw")["access_token"]}
    options = dict(common, port=port)
    small = measure(directory, options, bearer, 10_000)
    return {"small": small, "large": measure(directory, options, bearer, large)}
