import Foundation
import GRDB
import StoreContracts

/// Sessions the identity source ended: SAML single logout (by subject, narrowed to SessionIndex
/// values) and an OpenID provider's back-channel logout (by its `sid` alone).
extension SQLiteStore {
    public func endSessions(subject: String, upstreamSessionKeys: [String]?, at date: Date) async throws -> [String] {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await write { db in
            var sql = "SELECT id FROM sessions WHERE subject = ? AND revoked_at IS NULL AND expires_at > ?"
            var arguments: StatementArguments = [subject, date.sql]
            if let keys = upstreamSessionKeys, !keys.isEmpty {
                sql += " AND (upstream_session IS NULL OR upstream_session IN (\(keys.map { _ in "?" }.joined(separator: ", "))))"
                arguments += StatementArguments(keys)
            }
            let ids = try String.fetchAll(db, sql: sql, arguments: arguments)
            try Self.end(ids, at: date, in: db)
            return ids
        }
    }

    public func endSessions(upstreamSessionKey: String, at date: Date) async throws -> [String] {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await write { db in
            let ids = try String.fetchAll(db, sql: """
                SELECT id FROM sessions WHERE upstream_session = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY id
                """, arguments: [upstreamSessionKey, date.sql])
            try Self.end(ids, at: date, in: db)
            return ids
        }
    }

    /// Ends the sessions `ids` and revokes their families, inside `db`'s transaction.
    private static func end(_ ids: [String], at date: Date, in db: Database) throws {
        for id in ids {
            try db.cachedStatement(sql: "UPDATE sessions SET revoked_at = ?, upstream = NULL WHERE id = ?")
                .execute(arguments: [date.sql, id])
            try db.cachedStatement(sql: "UPDATE token_families SET revoked_at = COALESCE(revoked_at, ?) WHERE session_id = ?")
                .execute(arguments: [date.sql, id])
        }
    }
}
