import Foundation
import StoreContracts

extension MemoryStore: OneTimeGrantStore {
    public func insertOneTimeGrant(hash: String, sealed: Data, expiresAt: Date) async throws {
        let row = OneTimeGrantRow(sealed: sealed, expiresAt: expiresAt)
        try transaction { try $0.oneTimeGrants.insertNew(row, at: hash, table: "one_time_grants") }
    }

    public func insertOneTimeGrantIfAbsent(hash: String, sealed: Data, expiresAt: Date) async throws -> Bool {
        try transaction { tables in
            guard tables.oneTimeGrants[hash] == nil else { return false }
            tables.oneTimeGrants[hash] = OneTimeGrantRow(sealed: sealed, expiresAt: expiresAt)
            return true
        }
    }

    /// Removes it whatever its expiry (the caller checks that).
    public func takeOneTimeGrant(hash: String) async throws -> (sealed: Data, expiresAt: Date)? {
        try transaction { tables in
            tables.oneTimeGrants.removeValue(forKey: hash).map { ($0.sealed, $0.expiresAt) }
        }
    }
}
