import Foundation
import PostgresNIO
import StoreContracts

/// The back-channel logout queue: rows written by the `sessions_logout_notice` trigger (migration
/// v16), claimed and settled here. `SKIP LOCKED` lets instances claiming at the same moment take
/// different notices instead of waiting on each other.
extension PostgresStore: LogoutNoticeStore {
    public func claimLogoutNotices(holder: String, until: Date, now: Date, limit: Int) async throws -> [LogoutNotice] {
        try await rows("""
            WITH due AS (
                SELECT session_id FROM logout_notices
                WHERE due_at <= \(now.pg) AND (claimed_until IS NULL OR claimed_until < \(now.pg))
                ORDER BY due_at, session_id LIMIT \(max(0, limit)) FOR UPDATE SKIP LOCKED
            )
            UPDATE logout_notices n SET holder = \(holder), claimed_until = \(until.pg) FROM due
            WHERE n.session_id = due.session_id
            RETURNING n.session_id, n.subject, n.ended_at, n.attempts, n.delivered,
                ARRAY(SELECT DISTINCT f.client_id FROM token_families f WHERE f.session_id = n.session_id ORDER BY 1), n.due_at
            """).map { row in
                let (sessionId, subject, endedAt, attempts, delivered, clients, due) =
                    try row.decode((String, String, Double, Int, [String], [String], Double).self)
                return (due, LogoutNotice(sessionId: sessionId, subject: subject, endedAt: Date(timeIntervalSince1970: endedAt),
                                          attempts: attempts, clientIds: clients.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) },
                                          delivered: delivered))
            }
            .sorted { ($0.0, $0.1.sessionId) < ($1.0, $1.1.sessionId) }
            .map(\.1)
    }

    public func settleLogoutNotice(sessionId: String, holder: String, delivered: [String], retryAt: Date?) async throws {
        if let retryAt {
            _ = try await rows("""
                UPDATE logout_notices SET delivered = \(delivered), attempts = attempts + 1, due_at = \(retryAt.pg),
                    holder = NULL, claimed_until = NULL
                WHERE session_id = \(sessionId) AND holder = \(holder)
                """)
        } else {
            _ = try await rows("DELETE FROM logout_notices WHERE session_id = \(sessionId) AND holder = \(holder)")
        }
    }
}
