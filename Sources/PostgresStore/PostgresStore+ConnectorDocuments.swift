import Foundation
import IdentityCore
import PostgresNIO

extension PostgresStore: ConnectorDocumentStore {
    public func connectorDocument(key: String) async throws -> StoredConnectorDocument? {
        guard let row = try await rows("SELECT data, fetched_at FROM connector_documents WHERE key = \(key)").first else {
            return nil
        }
        let (data, fetchedAt) = try row.decode((Data, Double).self)
        return StoredConnectorDocument(data: data, fetchedAt: Date(timeIntervalSince1970: fetchedAt))
    }

    /// An upsert that keeps the copy fetched last, whichever instance stored it.
    public func saveConnectorDocument(_ document: StoredConnectorDocument, key: String) async throws {
        _ = try await rows("""
            INSERT INTO connector_documents (key, data, fetched_at) VALUES (\(key), \(document.data), \(document.fetchedAt.pg))
            ON CONFLICT (key) DO UPDATE SET data = excluded.data, fetched_at = excluded.fetched_at
            WHERE excluded.fetched_at >= connector_documents.fetched_at
            """)
    }
}
