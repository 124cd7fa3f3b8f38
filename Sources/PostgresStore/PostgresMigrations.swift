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
