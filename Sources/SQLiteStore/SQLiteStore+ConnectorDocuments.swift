import Foundation
import GRDB
import IdentityCore

extension SQLiteStore: ConnectorDocumentStore {
    public func connectorDocument(key: String) async throws -> StoredConnectorDocument? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT data, fetched_at FROM connector_documents WHERE key = ?"),
                arguments: [key]).map { row in
                StoredConnectorDocument(data: row["data"], fetchedAt: Date(timeIntervalSince1970: row["fetched_at"]))
            }
        }
    }

    /// An upsert that keeps the copy fetched last.
    public func saveConnectorDocument(_ document: StoredConnectorDocument, key: String) async throws {
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO connector_documents (key, data, fetched_at) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET data = excluded.data, fetched_at = excluded.fetched_at
                WHERE excluded.fetched_at >= connector_documents.fetched_at
                """).execute(arguments: [key, document.data, document.fetchedAt.sql])
        }
    }
}
