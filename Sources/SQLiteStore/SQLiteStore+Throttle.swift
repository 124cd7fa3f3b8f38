import Foundation
import GRDB
import StoreContracts

/// The throttle: counted in memory (``ThrottleCounters``), kept in the `throttle` table.
extension SQLiteStore: ThrottleStore {
    public func throttleAttempt(_ rule: ThrottleRule, at date: Date) async throws -> Bool {
        let (allowed, scheduleFlush) = throttle.attempt([rule], at: date.sql)
        if scheduleFlush { scheduleThrottleFlush() }
        return allowed
    }

    public func throttleReserve(_ rules: [ThrottleRule], at date: Date) async throws -> ThrottleDecision {
        throttle.reserve(rules, at: date.sql)
    }

    public func throttleFailed(_ rules: [ThrottleRule], reservedAt: Date, at date: Date) async throws {
        if throttle.failed(rules, reservedAt: reservedAt.sql, at: date.sql) { scheduleThrottleFlush() }
    }

    public func throttleSucceeded(_ reset: ThrottleReset) async throws {
        applied(reset)
    }

    public func capThrottle(maxRows: Int) async throws {
        if throttle.cap(maxRows: maxRows) { scheduleThrottleFlush() }
    }

    /// An attempt's reset (``ThrottleReset``), once the write it came with committed (a sign-in's
    /// completion), or on its own.
    func applied(_ reset: ThrottleReset?) {
        guard let reset, reset.reset != nil || reset.release != nil else { return }
        if throttle.succeeded(reset) { scheduleThrottleFlush() }
    }

    /// How long changed counters wait before they are written: one transaction for all the
    /// attempts of that time instead of one per attempt.
    static let throttleFlushDelay: Duration = .seconds(1)

    /// Writes the changed counters about a second from now, off the event loops.
    func scheduleThrottleFlush() {
        Task.detached { [self] in
            try? await Task.sleep(for: Self.throttleFlushDelay)
            try? await flushThrottle()
        }
    }

    /// Writes the counters changed since the last flush to the table in one transaction: the
    /// counters as they are now, and deletions for the ones dropped. Does nothing once the store
    /// is closing, unless `closing` (the last flush, from ``close()``). A failed write leaves the
    /// changes to the next flush and throws.
    func flushThrottle(closing: Bool = false) async throws {
        guard let changes = throttle.takeChanges(closing: closing) else { return }
        guard !changes.isEmpty else { return throttle.flushEnded() }
        do {
            try await writeOffLoop { db in
                let upsert = try db.cachedStatement(sql: """
                    INSERT INTO throttle (key_hash, window_start, count, last_attempt, expires_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (key_hash) DO UPDATE SET window_start = excluded.window_start, count = excluded.count,
                        last_attempt = excluded.last_attempt, expires_at = excluded.expires_at
                    """)
                let delete = try db.cachedStatement(sql: "DELETE FROM throttle WHERE key_hash = ?")
                for change in changes {
                    if let counter = change.counter {
                        try upsert.execute(arguments: [change.key, counter.windowStart, counter.count, counter.lastAttempt, counter.expiresAt])
                    } else {
                        try delete.execute(arguments: [change.key])
                    }
                }
            }
            throttle.flushEnded()
        } catch {
            throttle.flushEnded(restoring: changes)
            throw error
        }
    }

    /// The counters in the table, read when the store opens.
    static func storedThrottleCounters(_ pool: DatabasePool) throws -> [(String, ThrottleCounters.Counter)] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT key_hash, window_start, count, last_attempt, expires_at FROM throttle").map { row in
                (row[0], ThrottleCounters.Counter(windowStart: row[1], count: row[2], lastAttempt: row[3], expiresAt: row[4]))
            }
        }
    }
}
