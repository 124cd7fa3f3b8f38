import Foundation
import GRDB

extension SQLiteStore: SSOStore {
    public func ssoRecord(hash: String) async throws -> SSORecord? {
        let data = try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT data FROM sso_sessions WHERE id_hash = ?", arguments: [hash])
        }
        return try data.map { try decode(SSORecord.self, $0) }
    }

    public func saveSSORecord(_ record: SSORecord, hash: String) async throws {
        let data = try encode(record)
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO sso_sessions (id_hash, data, expires_at) VALUES (?, ?, ?)
                ON CONFLICT(id_hash) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at
                """, arguments: [hash, data, record.expiresAt.sql])
        }
    }

    public func deleteSSORecord(hash: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM sso_sessions WHERE id_hash = ?", arguments: [hash])
        }
    }
}

extension SQLiteStore {
    public func accessContext(familyId: String, jti: String) async throws -> AccessContext? {
        try await pool.read { db in
            // Cached statements: this runs on every validate, and preparing SQL each time (parser and
            // GRDB's authorizer) cost more than the three lookups themselves.
            guard let familyRow = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM token_families WHERE id = ?"),
                                                   arguments: [familyId]),
                  let sessionRow = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM sessions WHERE id = ?"),
                                                    arguments: [familyRow["session_id"] as String]) else { return nil }
            let revoked = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM revoked_access_tokens WHERE jti = ?"),
                                            arguments: [jti]) ?? false
            return AccessContext(family: Self.family(from: familyRow), session: try self.session(from: sessionRow),
                                 accessTokenRevoked: revoked)
        }
    }
}
