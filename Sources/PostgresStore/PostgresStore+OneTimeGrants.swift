import Foundation
import StoreContracts
import PostgresNIO

extension PostgresStore: OneTimeGrantStore {
    public func insertOneTimeGrant(hash: String, sealed: Data, expiresAt: Date) async throws {
        _ = try await rows("INSERT INTO one_time_grants (hash, data, expires_at) VALUES (\(hash), \(sealed), \(expiresAt.pg))")
    }

    public func insertOneTimeGrantIfAbsent(hash: String, sealed: Data, expiresAt: Date) async throws -> Bool {
        try await rows("""
            INSERT INTO one_time_grants (hash, data, expires_at) VALUES (\(hash), \(sealed), \(expiresAt.pg))
            ON CONFLICT (hash) DO NOTHING RETURNING 1
            """).count == 1
    }

    /// `DELETE ... RETURNING` is one atomic statement: of two concurrent takers exactly one gets the row.
    public func takeOneTimeGrant(hash: String) async throws -> (sealed: Data, expiresAt: Date)? {
        guard let row = try await rows("DELETE FROM one_time_grants WHERE hash = \(hash) RETURNING data, expires_at").first else {
            return nil
        }
        let (data, expiresAt) = try row.decode((Data, Double).self)
        return (data, Date(timeIntervalSince1970: expiresAt))
    }
}
