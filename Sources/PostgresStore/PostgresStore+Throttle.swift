import Foundation
import StoreContracts
import PostgresNIO

extension PostgresStore: ThrottleStore {
    /// One statement: the decision sits in the upsert's `WHERE`, evaluated on the locked, current
    /// row, so concurrent attempts on any instance are counted one at a time.
    public func throttleAttempt(_ rule: ThrottleRule, at date: Date) async throws -> Bool {
        let now = date.pg
        let window = max(rule.window, rule.spacing)
        return try await !rows("""
            INSERT INTO throttle AS t (key_hash, window_start, count, last_attempt, expires_at)
            VALUES (\(rule.keyHash), \(now), 1, \(now), \(now + window))
            ON CONFLICT (key_hash) DO UPDATE SET
                count = CASE WHEN t.window_start <= \(now - window) THEN 1 ELSE t.count + 1 END,
                window_start = CASE WHEN t.window_start <= \(now - window) THEN \(now) ELSE t.window_start END,
                last_attempt = \(now), expires_at = GREATEST(t.expires_at, \(now + window))
            WHERE t.window_start <= \(now - window) OR t.count < \(rule.limit) OR t.last_attempt <= \(now - rule.spacing)
            RETURNING count
            """).isEmpty
    }

    public func throttleSucceeded(reset: String?, release: String?) async throws {
        guard reset != nil || release != nil else { return }
        _ = try await rows("\(throttleUpdateFor: ThrottleReset(reset: reset, release: release))")
    }

    public func capThrottle(maxRows: Int) async throws {
        _ = try await rows("""
            DELETE FROM throttle WHERE key_hash IN (
                SELECT key_hash FROM throttle ORDER BY count >= 5 DESC, last_attempt DESC OFFSET \(maxRows))
            """)
    }
}
