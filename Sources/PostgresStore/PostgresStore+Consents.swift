import Foundation
import PostgresNIO
import StoreContracts

/// Consents (migration v17): one row per (subject, client).
extension PostgresStore: ConsentStore {
    public func consent(subject: String, clientId: String) async throws -> ConsentRecord? {
        try await rows("""
            SELECT subject, client_id, scopes, granted_at, updated_at FROM consents WHERE subject = \(subject) AND client_id = \(clientId)
            """).first.map(Self.consent)
    }

    public func saveConsent(_ record: ConsentRecord) async throws {
        _ = try await rows("""
            INSERT INTO consents (subject, client_id, scopes, granted_at, updated_at)
            VALUES (\(record.subject), \(record.clientId), \(record.scopes), \(record.grantedAt.pg), \(record.updatedAt.pg))
            ON CONFLICT (subject, client_id) DO UPDATE SET scopes = EXCLUDED.scopes, updated_at = EXCLUDED.updated_at
            """)
    }

    public func consents(subject: String, limit: Int) async throws -> [ConsentRecord] {
        try await rows("""
            SELECT subject, client_id, scopes, granted_at, updated_at FROM consents WHERE subject = \(subject)
            ORDER BY updated_at DESC, client_id LIMIT \(max(0, limit))
            """).map(Self.consent)
    }

    public func revokeConsent(subject: String, clientId: String) async throws -> Bool {
        try await rows("DELETE FROM consents WHERE subject = \(subject) AND client_id = \(clientId) RETURNING 1").count == 1
    }

    private static func consent(_ row: PostgresRow) throws -> ConsentRecord {
        let (subject, clientId, scopes, grantedAt, updatedAt) = try row.decode((String, String, [String], Double, Double).self)
        return ConsentRecord(subject: subject, clientId: clientId, scopes: scopes, grantedAt: Date(timeIntervalSince1970: grantedAt),
                             updatedAt: Date(timeIntervalSince1970: updatedAt))
    }
}
