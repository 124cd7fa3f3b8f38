import Foundation
import IdentityCore

extension MemoryStore: ConnectorDocumentStore {
    public func connectorDocument(key: String) async throws -> StoredConnectorDocument? {
        try read { $0.connectorDocuments[key] }
    }

    /// Keeps the copy fetched last (a copy fetched at the same moment replaces it).
    public func saveConnectorDocument(_ document: StoredConnectorDocument, key: String) async throws {
        try transaction { tables in
            if let stored = tables.connectorDocuments[key], stored.fetchedAt > document.fetchedAt { return }
            tables.connectorDocuments[key] = document
        }
    }
}
