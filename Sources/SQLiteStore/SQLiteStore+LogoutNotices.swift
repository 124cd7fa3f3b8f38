import Foundation
import GRDB
import StoreContracts

/// The back-channel logout queue: rows written by the `sessions_logout_notice` trigger (migration
/// v18), claimed and settled here.
extension SQLiteStore: LogoutNoticeStore {
    public func claimLogoutNotices(holder: String, until: Date, now: Date, limit: Int) async throws -> [LogoutNotice] {
        // Every instance asks about once a second: a read answers the usual "nothing due" without
        // taking a writer turn.
        let due = try await pool.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM logout_notices WHERE due_at <= ? AND (claimed_until IS NULL OR claimed_until < ?))
                """, arguments: [now.sql, now.sql]) ?? false
        }
        guard due else { return [] }
        return try await write { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT session_id, subject, ended_at, attempts, delivered FROM logout_notices
                WHERE due_at <= ? AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY due_at, session_id LIMIT ?
                """), arguments: [now.sql, now.sql, max(0, limit)])
            return try rows.map { row in
                let sessionId: String = row[0]
                try db.cachedStatement(sql: "UPDATE logout_notices SET holder = ?, claimed_until = ? WHERE session_id = ?")
                    .execute(arguments: [holder, until.sql, sessionId])
                let clients = try String.fetchAll(db.cachedStatement(sql: """
                    SELECT DISTINCT client_id FROM token_families WHERE session_id = ? ORDER BY client_id
                    """), arguments: [sessionId])
                return LogoutNotice(sessionId: sessionId, subject: row[1], endedAt: Date(sql: row[2] as Double?) ?? now, attempts: row[3],
                                    clientIds: clients, delivered: Self.clientList(row[4]))
            }
        }
    }

    public func settleLogoutNotice(sessionId: String, holder: String, delivered: [String], retryAt: Date?) async throws {
        try await write { db in
            if let retryAt {
                try db.cachedStatement(sql: """
                    UPDATE logout_notices SET delivered = ?, attempts = attempts + 1, due_at = ?, holder = NULL, claimed_until = NULL
                    WHERE session_id = ? AND holder = ?
                    """).execute(arguments: [delivered.joined(separator: " "), retryAt.sql, sessionId, holder])
            } else {
                try db.cachedStatement(sql: "DELETE FROM logout_notices WHERE session_id = ? AND holder = ?")
                    .execute(arguments: [sessionId, holder])
            }
        }
    }

    /// Client ids contain no spaces (configuration ids and `dyn~` ids), so a space-separated list keeps them.
    static func clientList(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }
}
