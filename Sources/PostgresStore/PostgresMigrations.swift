import Foundation
import IdentityCore
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The schema, created and upgraded at start, safely when several instances start at once.
///
/// Applied versions are rows of `idconnect_migrations`; one instance at a time migrates, holding
/// the lease row of `idconnect_migration_lease` (an expiry, not an advisory lock, so a crashed
/// instance cannot block the others for longer than the lease). Each migration commits together
/// with its version row, so a migration is either fully applied and recorded or not at all.
enum PostgresMigrations {
    /// Every migration, oldest first: a version name and its statements.
    static let migrations: [(version: String, statements: [String])] = [
        ("v1", [
            """
            CREATE TABLE pending_authorizations (
                id_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX pending_authorizations_expiry ON pending_authorizations (expires_at)",
            """
            CREATE TABLE authorization_codes (
                code_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL,
                used_at DOUBLE PRECISION, family_id TEXT)
            """,
            "CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at)",
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY, subject TEXT NOT NULL, user_id TEXT NOT NULL, app_key TEXT NOT NULL,
                auth_service_id TEXT NOT NULL, attributes BYTEA NOT NULL, upstream BYTEA,
                upstream_expires_at DOUBLE PRECISION, auth_time DOUBLE PRECISION NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL,
                revoked_at DOUBLE PRECISION, version BIGINT NOT NULL DEFAULT 0)
            """,
            "CREATE INDEX sessions_expiry ON sessions (expires_at)",
            """
            CREATE TABLE token_families (
                id TEXT PRIMARY KEY, session_id TEXT NOT NULL, client_id TEXT NOT NULL, scope TEXT NOT NULL,
                nonce TEXT, created_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION,
                refresh_hash TEXT UNIQUE, refresh_expires_at DOUBLE PRECISION, previous_refresh_hash TEXT,
                rotated_at DOUBLE PRECISION, grace_response BYTEA)
            """,
            "CREATE INDEX token_families_session ON token_families (session_id)",
            "CREATE INDEX token_families_previous ON token_families (previous_refresh_hash)",
            "CREATE TABLE retired_refresh_tokens (token_hash TEXT PRIMARY KEY, family_id TEXT NOT NULL)",
            "CREATE INDEX retired_refresh_tokens_family ON retired_refresh_tokens (family_id)",
            """
            CREATE TABLE opaque_access_tokens (
                token_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX opaque_access_tokens_expiry ON opaque_access_tokens (expires_at)",
            "CREATE TABLE revoked_access_tokens (jti TEXT PRIMARY KEY, expires_at DOUBLE PRECISION NOT NULL)",
            """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY, algorithm TEXT NOT NULL, private_key BYTEA NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, retired_at DOUBLE PRECISION, remove_after DOUBLE PRECISION)
            """,
            "CREATE TABLE sso_sessions (id_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX sso_sessions_expiry ON sso_sessions (expires_at)",
            """
            CREATE TABLE refresh_leases (
                session_id TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
        ]),
        ("v2-registered-clients", [
            """
            CREATE TABLE registered_clients (
                client_id TEXT PRIMARY KEY, app_key TEXT NOT NULL, data BYTEA NOT NULL,
                bound_subject TEXT, created_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX registered_clients_app_key ON registered_clients (app_key, created_at)",
            "CREATE INDEX registered_clients_unbound ON registered_clients (created_at) WHERE bound_subject IS NULL",
        ]),
        ("v3-one-time-grants", [
            "CREATE TABLE one_time_grants (hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX one_time_grants_expiry ON one_time_grants (expires_at)",
        ]),
        // Deleting an app instance revokes its families wherever they are.
        ("v4-families-by-client", ["CREATE INDEX token_families_client ON token_families (client_id)"]),
        // Sessions get an absolute end (sessionMaxAge, SAML SessionNotOnOrAfter); families remember
        // whether the client authenticated; throttling is shared by every instance.
        ("v5-security", [
            "ALTER TABLE sessions ADD COLUMN max_expires_at DOUBLE PRECISION",
            "ALTER TABLE token_families ADD COLUMN client_authenticated BOOLEAN NOT NULL DEFAULT FALSE",
            """
            CREATE TABLE throttle (
                key_hash TEXT PRIMARY KEY, window_start DOUBLE PRECISION NOT NULL, count INTEGER NOT NULL,
                last_attempt DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX throttle_expiry ON throttle (expires_at)",
            // Sessions from before get the default sessionMaxAge (30 days after their sign-in).
            "UPDATE sessions SET max_expires_at = auth_time + 2592000 WHERE max_expires_at IS NULL",
        ]),
        // QR-code sign-ins: the browser showing the code and the app confirming it.
        ("v6-qr-logins", [
            """
            CREATE TABLE qr_logins (
                code_hash TEXT PRIMARY KEY, pending_id_hash TEXT NOT NULL, browser_hash TEXT NOT NULL,
                client_id TEXT NOT NULL, app_key TEXT NOT NULL, auth_service_id TEXT NOT NULL,
                user_agent TEXT NOT NULL, accept_language TEXT, client_address TEXT,
                state TEXT NOT NULL, session_id TEXT, subject TEXT, refusal TEXT,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX qr_logins_expiry ON qr_logins (expires_at)",
        ]),
        // RFC 8707: the APIs a token family was narrowed to; OIDC: the claims it asked for.
        ("v7-resources-claims", ["ALTER TABLE token_families ADD COLUMN resources TEXT",
                                 "ALTER TABLE token_families ADD COLUMN claims TEXT"]),
        // The account page: which browser signed in, from where, last use.
        ("v8-account", [
            "ALTER TABLE sessions ADD COLUMN user_agent TEXT",
            "ALTER TABLE sessions ADD COLUMN client_address TEXT",
            "ALTER TABLE sessions ADD COLUMN last_used_at DOUBLE PRECISION",
            "CREATE INDEX sessions_subject ON sessions (subject)",
            "CREATE INDEX registered_clients_subject ON registered_clients (bound_subject)",
        ]),
        // Second factors (docs/mfa.md) and what each session's sign-in proved (amr).
        ("v9-mfa", [
            """
            CREATE TABLE mfa_totp (
                subject TEXT PRIMARY KEY, namespace TEXT NOT NULL, auth_service_id TEXT NOT NULL, user_id TEXT NOT NULL,
                secret BYTEA NOT NULL, last_step BIGINT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, last_used_at DOUBLE PRECISION)
            """,
            "CREATE INDEX mfa_totp_user ON mfa_totp (auth_service_id, user_id)",
            """
            CREATE TABLE mfa_passkeys (
                credential_id TEXT PRIMARY KEY, subject TEXT NOT NULL, namespace TEXT NOT NULL,
                auth_service_id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL, public_key BYTEA NOT NULL,
                sign_count BIGINT NOT NULL, transports TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, last_used_at DOUBLE PRECISION)
            """,
            "CREATE INDEX mfa_passkeys_subject ON mfa_passkeys (subject)",
            "CREATE INDEX mfa_passkeys_user ON mfa_passkeys (auth_service_id, user_id)",
            """
            CREATE TABLE mfa_recovery_codes (
                subject TEXT NOT NULL, code_hash TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (subject, code_hash))
            """,
            "ALTER TABLE sessions ADD COLUMN amr TEXT",
        ]),
        // SAML single logout: a session remembers the IdP's SessionIndex (hashed), and the IdP's
        // LogoutRequest finds a user's sessions by subject. IdP metadata: the last good copy of
        // each fetched document, shared by every instance and kept across restarts.
        ("v10-saml-lifecycle", [
            "ALTER TABLE sessions ADD COLUMN upstream_session TEXT",
            """
            CREATE TABLE connector_documents (
                key TEXT PRIMARY KEY, data BYTEA NOT NULL, fetched_at DOUBLE PRECISION NOT NULL)
            """,
        ]),
        // CORS: the browser origins registered app instances list (`web_origins`), looked up by
        // origin for preflights, which name no client. The instance keeps them in its data.
        ("v11-web-origins", [
            """
            CREATE TABLE registered_client_origins (
                origin TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES registered_clients (client_id) ON DELETE CASCADE,
                PRIMARY KEY (origin, client_id))
            """,
            "CREATE INDEX registered_client_origins_client ON registered_client_origins (client_id)",
        ]),
        // The login throttle counts failures only: each attempt in flight holds a place, the time
        // it was reserved, until it is settled or its hold runs out (docs/security.md, rule 6).
        ("v12-throttle-reservations", [
            "ALTER TABLE throttle ADD COLUMN pending DOUBLE PRECISION[] NOT NULL DEFAULT '{}'",
        ]),
    ]

    /// How long the migrating instance may hold the lease before another may take over.
    static let leaseDuration: TimeInterval = 120

    /// Connects once (so an unreachable database is reported at start) and applies what is missing.
    static func migrate(settings: PostgresSettings, logger: Logger) async throws {
        let connection: PostgresConnection
        do {
            connection = try await connect(settings: settings, logger: logger)
        } catch {
            throw PostgresStoreError("cannot connect to PostgreSQL at \(settings.location): \(PostgresStoreError.reason(error))")
        }
        // Closed without waiting for the server's goodbye: nothing depends on it.
        defer {
            // Kept alive until closed (postgres-nio asserts that a connection is closed first).
            let closing: EventLoopFuture<Void> = connection.close()
            closing.whenComplete { _ in withExtendedLifetime(connection) {} }
        }
        do {
            try await migrate(on: connection, logger: logger)
        } catch {
            throw PostgresStoreError("cannot migrate the PostgreSQL database at \(settings.location): \(PostgresStoreError.reason(error))")
        }
    }

    /// One connection, or an error once `connect_timeout` (plus the handshake's share) has
    /// passed — the TCP connect timeout alone does not bound a server that accepts and then
    /// never completes the startup exchange.
    static func connect(settings: PostgresSettings, logger: Logger) async throws -> PostgresConnection {
        let eventLoop = PostgresConnection.defaultEventLoopGroup.any()
        let configuration = try settings.connectionConfiguration()
        let attempt: EventLoopFuture<PostgresConnection> = PostgresConnection.connect(
            on: eventLoop, configuration: configuration, id: 0, logger: logger)
        let result = eventLoop.makePromise(of: PostgresConnection.self)
        let settled = NIOLockedValueBox(false)
        let settle: @Sendable (Result<PostgresConnection, any Error>) -> Bool = { outcome in
            let first = settled.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { result.completeWith(outcome) }
            return first
        }
        let timer = eventLoop.scheduleTask(in: .seconds(Int64(settings.connectTimeout) * 2)) {
            _ = settle(.failure(PostgresUnavailable(description: "no answer within \(settings.connectTimeout * 2) s")))
        }
        attempt.whenComplete { outcome in
            timer.cancel()
            // Too late: the caller has given up, so the connection is not needed.
            if !settle(outcome), case .success(let late) = outcome {
                let closing: EventLoopFuture<Void> = late.close()
                closing.whenComplete { _ in withExtendedLifetime(late) {} }
            }
        }
        return try await result.futureResult.get()
    }

    /// Applies what `migrations` (by default every migration) has that the database lacks.
    static func migrate(on connection: PostgresConnection, migrations: [(version: String, statements: [String])] = migrations,
                        logger: Logger) async throws {
        try await createBookkeeping(on: connection, logger: logger)
        let holder = Secrets.randomToken(bytes: 9)
        let deadline = Date().addingTimeInterval(leaseDuration + 30)
        while true {
            let applied = Set(try await connection.query("SELECT version FROM idconnect_migrations", logger: logger)
                .collect().map { try $0.decode(String.self) })
            let missing = migrations.filter { !applied.contains($0.version) }
            if missing.isEmpty { return }
            let now = Date()
            let taken = try await connection.query("""
                INSERT INTO idconnect_migration_lease (id, holder, expires_at) VALUES (1, \(holder), \(now.pg + leaseDuration))
                ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                WHERE idconnect_migration_lease.expires_at < \(now.pg) OR idconnect_migration_lease.holder = excluded.holder
                RETURNING holder
                """, logger: logger).collect()
            if taken.isEmpty {
                // Another instance is migrating: wait for it, then look again.
                guard Date() < deadline else { throw PostgresStoreError("another instance has been migrating for too long") }
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            // Read again under the lease: the previous holder may have finished just before.
            let appliedNow = Set(try await connection.query("SELECT version FROM idconnect_migrations", logger: logger)
                .collect().map { try $0.decode(String.self) })
            for migration in missing where !appliedNow.contains(migration.version) {
                try await connection.withTransaction(logger: logger) { connection in
                    // Schema changes (an index on a large table) may need far longer than the
                    // store's `statement_timeout`, which would cancel them and fail every start:
                    // here they are bounded by the lease instead, so no statement outlives it.
                    try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(Int(leaseDuration * 1000))"),
                                               logger: logger)
                    // Inserted first: should another instance have applied it anyway (its lease ran
                    // out), this fails on the primary key and the transaction (with its DDL) rolls back.
                    try await connection.query("""
                        INSERT INTO idconnect_migrations (version, applied_at) VALUES (\(migration.version), \(Date().pg))
                        """, logger: logger)
                    for statement in migration.statements {
                        // Drained: an error that comes after the first rows (a statement that
                        // returns rows and then fails or is cancelled) arrives with the rows, and
                        // left unread the transaction's COMMIT would quietly roll back.
                        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
                    }
                }
                logger.info("database migrated", metadata: ["version": "\(migration.version)"])
            }
            try await connection.query("DELETE FROM idconnect_migration_lease WHERE id = 1 AND holder = \(holder)", logger: logger)
        }
    }

    /// The two bookkeeping tables. `IF NOT EXISTS` still races when two instances create the same
    /// table at the same moment (a unique violation in the catalog, or "type already exists"),
    /// so those errors mean "try again": the next attempt finds the table.
    private static func createBookkeeping(on connection: PostgresConnection, logger: Logger) async throws {
        let statements = [
            "CREATE TABLE IF NOT EXISTS idconnect_migrations (version TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS idconnect_migration_lease (
                id INTEGER PRIMARY KEY, holder TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
        ]
        for statement in statements {
            for attempt in 1...5 {
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    break
                } catch let error as PSQLError where ["23505", "42P07", "42710"].contains(error.serverInfo?[.sqlState] ?? "") && attempt < 5 {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }
}
