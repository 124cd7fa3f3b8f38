import Foundation
import StoreContracts

extension MemoryStore: SSOStore {
    public func ssoRecord(hash: String) async throws -> SSORecord? {
        try read { $0.ssoRecords[hash] }
    }

    /// Inserts or replaces.
    public func saveSSORecord(_ record: SSORecord, hash: String) async throws {
        try transaction { $0.ssoRecords[hash] = record }
    }

    public func deleteSSORecord(hash: String) async throws {
        try transaction { $0.ssoRecords[hash] = nil }
    }
}
