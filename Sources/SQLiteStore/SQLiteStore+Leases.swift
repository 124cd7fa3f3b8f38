import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: RefreshLeaseStore {
    public func acquireRefreshLease(sessionId: String, holder: String, until: Date, now: Date) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO refresh_leases (session_id, holder, expires_at) VALUES (?, ?, ?)
                ON CONFLICT(session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                WHERE refresh_leases.expires_at < ? OR refresh_leases.holder = excluded.holder
                """).execute(arguments: [sessionId, holder, until.sql, now.sql])
            return db.changesCount == 1
        }
    }

    public func releaseRefreshLease(sessionId: String, holder: String) async throws {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM refresh_leases WHERE session_id = ? AND holder = ?")
                .execute(arguments: [sessionId, holder])
        }
    }
}
