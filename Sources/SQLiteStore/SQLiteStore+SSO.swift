import Foundation
import GRDB
import StoreContracts
import IdentityCore

extension SQLiteStore: SSOStore {
    public func ssoRecord(hash: String) async throws -> SSORecord? {
        let data = try await pool.read { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM sso_sessions WHERE id_hash = ?"), arguments: [hash])
        }
        return try data.map { try decode(SSORecord.self, $0) }
    }

    public func saveSSORecord(_ record: SSORecord, hash: String) async throws {
        let data = try encode(record)
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO sso_sessions (id_hash, data, expires_at) VALUES (?, ?, ?)
                ON CONFLICT(id_hash) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at
                """).execute(arguments: [hash, data, record.expiresAt.sql])
        }
    }

    public func deleteSSORecord(hash: String) async throws {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM sso_sessions WHERE id_hash = ?").execute(arguments: [hash])
        }
    }
}

extension SQLiteStore {
    public func accessContext(familyId: String, jti: String) async throws -> AccessContext? {
        try await pointRead { db in
            // One cached statement: family, its session and the revocation flag in a single lookup.
            let statement = try db.cachedStatement(sql: Self.accessContextQuery)
            guard let row = try Row.fetchOne(statement, arguments: [jti, familyId]) else { return nil }
            return AccessContext(family: Self.family(from: row, at: 1), session: try self.session(from: row, at: 1 + Self.familyColumnCount),
                                 accessTokenRevoked: row[0] as Bool)
        }
    }

    static let accessContextQuery = """
        SELECT EXISTS(SELECT 1 FROM revoked_access_tokens WHERE jti = ?), \(familyColumnsOfF), \
        \(qualified(sessionColumns, alias: "s"))
        FROM token_families f JOIN sessions s ON s.id = f.session_id WHERE f.id = ?
        """
}
