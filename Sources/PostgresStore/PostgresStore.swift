import Foundation
import IdentityCore
import IdentityStore
import Logging
import PostgresNIO

/// Shared storage for any number of broker instances (SPEC §7): every role of ``BrokerStore`` on
/// one PostgreSQL database, through a postgres-nio connection pool.
///
/// The SQL stays within what PostgreSQL-compatible distributed databases (CockroachDB, YugabyteDB)
/// also run: single-use and compare-and-swap updates are conditional `UPDATE`s, exclusive work is
/// guarded by lease rows with an expiry (no advisory locks), transactions are retried on
/// serialization failures and deadlocks, and nothing depends on LISTEN/NOTIFY.
public final class PostgresStore: Sendable {
    let client: PostgresClient
    let settings: PostgresSettings
    let logger: Logger
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    private let runner: Task<Void, Never>

    /// Connects, migrates (safely when several instances start at once) and opens the pool.
    ///
    /// - Throws: ``PostgresSettings/Invalid`` for a bad URL, ``PostgresStoreError`` when the
    ///   database cannot be reached or migrated — with a message naming the server, never the password.
    public static func open(url: String, logger: Logger = Logger(label: "idconnect.postgres")) async throws -> PostgresStore {
        try await open(settings: PostgresSettings(url: url), logger: logger)
    }

    public static func open(settings: PostgresSettings, logger: Logger = Logger(label: "idconnect.postgres")) async throws -> PostgresStore {
        try await PostgresMigrations.migrate(settings: settings, logger: logger)
        return PostgresStore(settings: settings, logger: logger)
    }

    private init(settings: PostgresSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
    }

    /// How long one store call may wait, in total, for a connection and its statements.
    var waitLimit: Duration { .seconds(settings.statementTimeout + settings.connectTimeout) }

    /// Runs `work`, retrying it when the database reports a serialization failure or deadlock
    /// (both roll the transaction back, so a retry is safe), and failing with
    /// ``PostgresStoreError`` instead of waiting forever while the database is unreachable.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await withDeadline(work)
            } catch let error as PSQLError where Self.isRetryable(error) && attempt < 8 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(4 << attempt))))
            }
        }
    }

    private func withDeadline<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = waitLimit
        let location = settings.location
        return try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw PostgresStoreError("PostgreSQL at \(location) did not answer within \(limit)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// All rows of one statement.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await run { [client, logger] in try await client.query(query, logger: logger).collect() }
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await run { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    static func isRetryable(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    func encode<T: Encodable>(_ value: T) throws -> Data { try encoder.encode(value) }
    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T { try decoder.decode(type, from: data) }
}

extension PostgresStore: MaintenanceStore {
    public func ping() async throws {
        _ = try await rows("SELECT 1")
    }

    public func purgeExpired(before date: Date) async throws -> Int {
        let now = date.pg
        // Codes are kept a day past expiry so a late replay still revokes what the code issued.
        let counted: [PostgresQuery] = [
            "DELETE FROM pending_authorizations WHERE expires_at < \(now) RETURNING 1",
            "DELETE FROM authorization_codes WHERE expires_at < \(now - 86_400) RETURNING 1",
            "DELETE FROM opaque_access_tokens WHERE expires_at < \(now) RETURNING 1",
            "DELETE FROM revoked_access_tokens WHERE expires_at < \(now) RETURNING 1",
            "DELETE FROM sso_sessions WHERE expires_at < \(now) RETURNING 1",
        ]
        var removed = 0
        for query in counted { removed += try await rows(query).count }
        _ = try await rows("DELETE FROM refresh_leases WHERE expires_at < \(now)")
        removed += try await transaction { [logger] connection in
            var count = 0
            try await connection.query("""
                DELETE FROM retired_refresh_tokens WHERE family_id IN (
                    SELECT f.id FROM token_families f JOIN sessions s ON s.id = f.session_id WHERE s.expires_at < \(now))
                """, logger: logger)
            count += try await connection.query("""
                DELETE FROM token_families WHERE session_id IN (SELECT id FROM sessions WHERE expires_at < \(now)) RETURNING 1
                """, logger: logger).collect().count
            count += try await connection.query("DELETE FROM sessions WHERE expires_at < \(now) RETURNING 1", logger: logger).collect().count
            return count
        }
        removed += try await rows("DELETE FROM signing_keys WHERE remove_after IS NOT NULL AND remove_after < \(now) RETURNING 1").count
        return removed
    }

    public func close() async throws {
        runner.cancel()
        await runner.value
    }
}

/// The database cannot be reached or refused what the broker asked; the message names the server
/// and the reason, never the password.
public struct PostgresStoreError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }

    /// A readable reason for a postgres-nio error (whose own description is deliberately vague).
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
            }
            if let underlying = error.underlying { return reason(underlying) }
            return "\(error.code)"
        }
        if let error = error as? PostgresStoreError { return error.description }
        return "\(error)"
    }
}

extension Date {
    /// Seconds since 1970, the way every timestamp column stores time.
    var pg: Double { timeIntervalSince1970 }
    init?(pg value: Double?) {
        guard let value else { return nil }
        self.init(timeIntervalSince1970: value)
    }
}
