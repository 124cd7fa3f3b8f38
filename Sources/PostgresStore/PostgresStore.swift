import Foundation
import IdentityCore
import StoreContracts
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Shared storage for any number of broker instances
/// (docs/operations.md, "Several instances on one database"): every role of ``BrokerStore`` on one
/// PostgreSQL database, through a postgres-nio connection pool.
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
    /// Writes that can end or change an access context (``accessContextChanges``).
    let accessChanges = ChangeCounter()
    private let runner: Task<Void, Never>
    /// Whether the last probe or ping reached the database (logged when it changes).
    let reachable = NIOLockedValueBox(true)
    private let prober: Task<Void, Never>

    /// Connects, migrates (safely when several instances start at once) and opens the pool.
    ///
    /// - Throws: ``PostgresSettings/Invalid`` for a bad URL, ``PostgresStoreError`` when the
    ///   database cannot be reached or migrated — with a message naming the server, never the password.
    public static func open(url: String, logger: Logger = Logger(label: "idconnect.postgres")) async throws -> PostgresStore {
        try await open(settings: PostgresSettings(url: url), logger: logger)
    }

    public static func open(settings: PostgresSettings, logger: Logger = Logger(label: "idconnect.postgres")) async throws -> PostgresStore {
        try await PostgresMigrations.migrate(settings: settings, logger: logger)
        let store = PostgresStore(settings: settings, logger: logger)
        try await store.warmUp()
        return store
    }

    /// Waits until the pool serves a statement. A connection asked of the pool before its `run()`
    /// task has started is not reliably served (postgres-nio warns about it, and calls made in
    /// that window hung now and then under load), so `open` returns only once the pool answers.
    private func warmUp() async throws {
        let deadline = ContinuousClock.now + .seconds(settings.connectTimeout * 2)
        while true {
            do {
                _ = try await Self.withDeadline(.seconds(1), location: settings.location) { [client, logger] in
                    try await client.query("SELECT 1", logger: logger).collect().count
                }
                return
            } catch where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                try? await close()
                throw PostgresStoreError("the PostgreSQL pool for \(settings.location) did not start: \(PostgresStoreError.reason(error))")
            }
        }
    }

    private init(settings: PostgresSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
        let reachable = reachable
        let location = settings.location
        let limit = Duration.seconds(settings.connectTimeout)
        prober = Task {
            // Once a second: can a statement reach the database? (See `run`.)
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .seconds(1))
                } catch {
                    return
                }
                let ok = (try? await Self.withDeadline(limit, location: location) {
                    _ = try await client.query("SELECT 1", logger: logger).collect()
                }) != nil
                let was = reachable.withLockedValue { value in
                    defer { value = ok }
                    return value
                }
                if was != ok {
                    if ok { logger.info("PostgreSQL reachable again", metadata: ["database": "\(location)"]) }
                    else { logger.warning("PostgreSQL unreachable", metadata: ["database": "\(location)"]) }
                }
            }
        }
    }

    /// How long one store call may wait, in total, for a connection and its statements.
    var waitLimit: Duration { .seconds(settings.statementTimeout + settings.connectTimeout) }

    /// Runs `work`, retrying it when the database reports a serialization failure or deadlock
    /// (both roll the transaction back, so a retry is safe), bounded by ``waitLimit``: while the
    /// database is unreachable (or a connection it killed never answers) the call fails with
    /// ``PostgresUnavailable`` — 503 for the request — instead of waiting.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await Self.withDeadline(waitLimit, location: settings.location, work)
            } catch let error as PSQLError where Self.isRetryable(error) && attempt < 8 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(4 << attempt))))
            } catch where Self.isUnavailable(error) {
                throw PostgresUnavailable(description: "PostgreSQL at \(settings.location) unavailable: \(PostgresStoreError.reason(error))")
            }
        }
    }

    /// `work`, or ``PostgresUnavailable`` once `limit` has passed — returning then even if `work`
    /// never finishes (a statement on a connection the server killed can wait forever; `work` is
    /// cancelled and left behind). The timer is an event-loop timer, and `work` a single task:
    /// a task group with a sleeping child cost about 40 % of validate throughput.
    static func withDeadline<T: Sendable>(_ limit: Duration, location: String,
                                          _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let eventLoop = PostgresConnection.defaultEventLoopGroup.any()
        let promise = eventLoop.makePromise(of: T.self)
        let settled = NIOLockedValueBox(false)
        let settle: @Sendable (Result<T, any Error>) -> Void = { outcome in
            let first = settled.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { promise.completeWith(outcome) }
        }
        let task = Task {
            do { settle(.success(try await work())) } catch { settle(.failure(error)) }
        }
        let (seconds, attoseconds) = limit.components
        let timer = eventLoop.scheduleTask(in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) {
            settle(.failure(PostgresUnavailable(description: "PostgreSQL at \(location) did not answer within \(limit)")))
            task.cancel()
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }

    /// All rows of one statement.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await run { [client, logger] in try await client.query(query, logger: logger).collect() }
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    /// postgres-nio wraps whatever goes wrong in a `PostgresTransactionError`; the error inside is
    /// thrown instead, so a deadlock or serialization failure in the body or at COMMIT is retried
    /// by ``run(_:)``, a dropped connection becomes 503, and the body's own errors reach the caller.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await run { [client, logger] in
            do {
                return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
            } catch let wrapped as PostgresTransactionError {
                throw wrapped.closureError ?? wrapped.commitError ?? wrapped.beginError ?? wrapped
            }
        }
    }

    /// Errors that say the database is unreachable, shutting down, overloaded or too slow — not
    /// that the request or the data is wrong.
    static func isUnavailable(_ error: any Error) -> Bool {
        if error is PostgresUnavailable { return true }
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState] {
                // 08: connection exception; 53: insufficient resources; 57: operator intervention
                // (statement timeout, administrator shutdown, cannot connect now).
                return ["08", "53", "57"].contains(String(state.prefix(2)))
            }
            return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
                    .queryCancelled].contains(error.code)
        }
        // The pool's own error type (its circuit breaker after failing to connect for a while)
        // lives in a module postgres-nio does not export; recognise it by name.
        return String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError")
    }

    static func isRetryable(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    func encode<T: Encodable>(_ value: T) throws -> Data { try encoder.encode(value) }
    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T { try decoder.decode(type, from: data) }
}

extension PostgresStore: MaintenanceStore {
    /// Always bounded (it answers `/readyz`), and it updates the reachability the probe keeps.
    public func ping() async throws {
        do {
            _ = try await Self.withDeadline(waitLimit, location: settings.location) { [client, logger] in
                try await client.query("SELECT 1", logger: logger).collect().count
            }
        } catch {
            reachable.withLockedValue { $0 = false }
            throw error
        }
        reachable.withLockedValue { $0 = true }
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
            "DELETE FROM one_time_grants WHERE expires_at < \(now) RETURNING 1",
            "DELETE FROM throttle WHERE expires_at < \(now) RETURNING 1",
            // QR sign-ins are kept a day past expiry, so a late app still hears "expired".
            "DELETE FROM qr_logins WHERE expires_at < \(now - 86_400) RETURNING 1",
            // Device authorizations too: a device polling late hears `expired_token`, not "unknown".
            "DELETE FROM device_authorizations WHERE expires_at < \(now - 86_400) RETURNING 1",
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

    /// Shuts the pool down first (every call still waiting for a connection fails at once), then
    /// stops the probe.
    public func close() async throws {
        runner.cancel()
        prober.cancel()
        await runner.value
        await prober.value
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

/// The database cannot be reached, or did not answer in time; requests answer 503.
public struct PostgresUnavailable: StorageUnavailable, CustomStringConvertible {
    public let description: String
}

extension Date {
    /// Seconds since 1970, the way every timestamp column stores time.
    var pg: Double { timeIntervalSince1970 }
    init?(pg value: Double?) {
        guard let value else { return nil }
        self.init(timeIntervalSince1970: value)
    }
}
