import Foundation
import GRDB
import StoreContracts

/// Consents (migration v19): one row per (subject, client); scopes as a space-separated list
/// (scope tokens contain no spaces, RFC 6749 §3.3).
extension SQLiteStore: ConsentStore {
    public func consent(subject: String, clientId: String) async throws -> ConsentRecord? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT subject, client_id, scopes, granted_at, updated_at FROM consents WHERE subject = ? AND client_id = ?
                """), arguments: [subject, clientId]).map(Self.consent)
        }
    }

    public func saveConsent(_ record: ConsentRecord) async throws {
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO consents (subject, client_id, scopes, granted_at, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (subject, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at
                """).execute(arguments: [record.subject, record.clientId, record.scopes.joined(separator: " "),
                                         record.grantedAt.sql, record.updatedAt.sql])
        }
    }

    public func consents(subject: String, limit: Int) async throws -> [ConsentRecord] {
        try await pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT subject, client_id, scopes, granted_at, updated_at FROM consents WHERE subject = ?
                ORDER BY updated_at DESC, client_id LIMIT ?
                """), arguments: [subject, max(0, limit)]).map(Self.consent)
        }
    }

    public func revokeConsent(subject: String, clientId: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM consents WHERE subject = ? AND client_id = ?")
                .execute(arguments: [subject, clientId])
            return db.changesCount > 0
        }
    }

    private static func consent(_ row: Row) -> ConsentRecord {
        ConsentRecord(subject: row[0], clientId: row[1], scopes: (row[2] as String).split(separator: " ").map(String.init),
                      grantedAt: Date(sql: row[3] as Double?) ?? .distantPast, updatedAt: Date(sql: row[4] as Double?) ?? .distantPast)
    }
}
