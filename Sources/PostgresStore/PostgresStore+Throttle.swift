import Foundation
import StoreContracts
import PostgresNIO

/// The throttle's counters (``ThrottleStore``): each decision sits in an upsert's `WHERE`,
/// evaluated on the locked, current row, so concurrent attempts on any instance are decided one
/// at a time. The login throttle's reservations are the times in `pending`.
extension PostgresStore: ThrottleStore {
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

    public func throttleReserve(_ rules: [ThrottleRule], at date: Date) async throws -> ThrottleDecision {
        var taken: [String] = []
        for rule in rules {
            let decision = try await reserve(rule, at: date)
            guard decision == .reserved else {
                for key in taken { try await throttleSucceeded(ThrottleReset(reset: nil, release: key, reservedAt: date)) }
                return decision
            }
            taken.append(rule.keyHash)
        }
        return .reserved
    }

    /// One rule's reservation. A refusal is explained from the row as the statement began (the
    /// decision itself used the locked row): a key found neither locked nor busy there was
    /// busy by the time the lock was taken.
    private func reserve(_ rule: ThrottleRule, at date: Date) async throws -> ThrottleDecision {
        let now = date.pg, window = max(rule.window, rule.spacing), live = now - rule.hold
        let row = try await rows("""
            WITH reserved AS (
                INSERT INTO throttle AS t (key_hash, window_start, count, last_attempt, expires_at, pending)
                VALUES (\(rule.keyHash), \(now), 0, \(now), \(now + rule.keep), ARRAY[\(now)])
                ON CONFLICT (key_hash) DO UPDATE SET
                    pending = array_append(ARRAY(SELECT x FROM unnest(t.pending) AS x WHERE x > \(live)), \(now)),
                    expires_at = GREATEST(t.expires_at, \(now + rule.keep))
                WHERE (CASE WHEN t.window_start <= \(now - window) THEN 0 ELSE t.count END)
                        + (SELECT count(*) FROM unnest(t.pending) AS x WHERE x > \(live)) < \(rule.limit)
                    OR (t.last_attempt <= \(now - rule.spacing)
                        AND NOT EXISTS (SELECT 1 FROM unnest(t.pending) AS x WHERE x > \(live)))
                RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM reserved), t.count, t.window_start, t.last_attempt
            FROM (VALUES (1)) AS one LEFT JOIN throttle t ON t.key_hash = \(rule.keyHash)
            """).first
        guard let row else { return .busy(keyHash: rule.keyHash) }
        let (reserved, count, windowStart, lastFailure) = try row.decode((Bool, Int?, Double?, Double?).self)
        if reserved { return .reserved }
        if let count, let windowStart, let lastFailure, windowStart > now - window, count >= rule.limit,
           lastFailure > now - rule.spacing {
            let until = min(lastFailure + rule.spacing, windowStart + window)
            return .locked(keyHash: rule.keyHash, until: Date(timeIntervalSince1970: until))
        }
        return .busy(keyHash: rule.keyHash)
    }

    public func throttleFailed(_ rules: [ThrottleRule], reservedAt: Date, at date: Date) async throws {
        let now = date.pg, stamp = reservedAt.pg
        for rule in rules {
            // The window starts again with the first failure, or when the last one ended.
            let ended = now - max(rule.window, rule.spacing)
            _ = try await rows("""
                INSERT INTO throttle AS t (key_hash, window_start, count, last_attempt, expires_at)
                VALUES (\(rule.keyHash), \(now), 1, \(now), \(now + rule.keep))
                ON CONFLICT (key_hash) DO UPDATE SET
                    count = CASE WHEN t.count = 0 OR t.window_start <= \(ended) THEN 1 ELSE t.count + 1 END,
                    window_start = CASE WHEN t.count = 0 OR t.window_start <= \(ended) THEN \(now) ELSE t.window_start END,
                    last_attempt = \(now), pending = \(pendingOf: "t", without: stamp),
                    expires_at = GREATEST(t.expires_at, \(now + rule.keep))
                """)
        }
    }

    public func throttleSucceeded(_ reset: ThrottleReset) async throws {
        guard reset.reset != nil || reset.release != nil else { return }
        _ = try await rows("\(throttleUpdateFor: reset)")
    }

    public func capThrottle(maxRows: Int) async throws {
        _ = try await rows("""
            DELETE FROM throttle WHERE key_hash IN (
                SELECT key_hash FROM throttle
                ORDER BY count >= 5 DESC, GREATEST(last_attempt, (SELECT max(x) FROM unnest(pending) AS x)) DESC
                OFFSET \(maxRows))
            """)
    }
}
