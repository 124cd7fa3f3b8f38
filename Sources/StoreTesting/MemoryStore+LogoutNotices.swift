import Foundation
import StoreContracts

extension MemoryStore: LogoutNoticeStore {
    public func claimLogoutNotices(holder: String, until: Date, now: Date, limit: Int) async throws -> [LogoutNotice] {
        try transaction { tables in
            let due = tables.logoutNotices.filter { _, row in row.dueAt <= now && (row.claimedUntil.map { $0 < now } ?? true) }
                .sorted { ($0.value.dueAt, $0.key) < ($1.value.dueAt, $1.key) }
                .prefix(max(0, limit))
            return due.map { sessionId, row in
                tables.logoutNotices[sessionId]?.holder = holder
                tables.logoutNotices[sessionId]?.claimedUntil = until
                let clients = Set(tables.families.values.filter { $0.sessionId == sessionId }.map(\.clientId))
                return LogoutNotice(sessionId: sessionId, subject: row.subject, endedAt: row.endedAt, attempts: row.attempts,
                                    clientIds: clients.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, delivered: row.delivered)
            }
        }
    }

    public func settleLogoutNotice(sessionId: String, holder: String, delivered: [String], retryAt: Date?) async throws {
        try transaction { tables in
            guard var row = tables.logoutNotices[sessionId], row.holder == holder else { return }
            guard let retryAt else {
                tables.logoutNotices[sessionId] = nil
                return
            }
            row.delivered = delivered
            row.attempts += 1
            row.dueAt = retryAt
            row.holder = nil
            row.claimedUntil = nil
            tables.logoutNotices[sessionId] = row
        }
    }
}
