import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: ThrottleStore {
    public func throttleAttempt(_ rule: ThrottleRule, at date: Date) async throws -> Bool {
        try await throttleAttempts([rule], at: date)
    }

    /// Every rule in one transaction (a sign-in counts its address and its username): one trip to
    /// the writer instead of one per rule.
    public func throttleAttempts(_ rules: [ThrottleRule], at date: Date) async throws -> Bool {
        let now = date.sql
        return try await write { db in
            for rule in rules {
                // The decision sits in the upsert's WHERE, which sees the row as it is now: of two
                // concurrent attempts at the limit, exactly one is counted.
                let counted = try Row.fetchOne(db.cachedStatement(sql: """
                    INSERT INTO throttle (key_hash, window_start, count, last_attempt, expires_at) VALUES (?1, ?2, 1, ?2, ?2 + ?3)
                    ON CONFLICT (key_hash) DO UPDATE SET
                        count = CASE WHEN throttle.window_start <= ?2 - ?3 THEN 1 ELSE throttle.count + 1 END,
                        window_start = CASE WHEN throttle.window_start <= ?2 - ?3 THEN ?2 ELSE throttle.window_start END,
                        last_attempt = ?2, expires_at = MAX(throttle.expires_at, ?2 + ?3)
                    WHERE throttle.window_start <= ?2 - ?3 OR throttle.count < ?4 OR throttle.last_attempt <= ?2 - ?5
                    RETURNING count
                    """), arguments: [rule.keyHash, now, max(rule.window, rule.spacing), rule.limit, rule.spacing]) != nil
                if !counted { return false }
            }
            return true
        }
    }

    public func throttleSucceeded(reset: String?, release: String?) async throws {
        guard reset != nil || release != nil else { return }
        try await write { db in try Self.apply(ThrottleReset(reset: reset, release: release), in: db) }
    }

    /// `throttleSucceeded`, inside whatever transaction `db` is in (a sign-in's completing write).
    static func apply(_ reset: ThrottleReset, in db: Database) throws {
        guard reset.reset != nil || reset.release != nil else { return }
        try db.cachedStatement(sql: """
            UPDATE throttle SET count = CASE WHEN key_hash = ?1 THEN 0 ELSE MAX(count - 1, 0) END
            WHERE key_hash IN (?1, ?2)
            """).execute(arguments: [reset.reset, reset.release])
    }

    public func capThrottle(maxRows: Int) async throws {
        try await writeOffLoop { db in
            try db.cachedStatement(sql: """
                DELETE FROM throttle WHERE key_hash IN (
                    SELECT key_hash FROM throttle ORDER BY count >= 5 DESC, last_attempt DESC LIMIT -1 OFFSET ?)
                """).execute(arguments: [maxRows])
        }
    }
}
