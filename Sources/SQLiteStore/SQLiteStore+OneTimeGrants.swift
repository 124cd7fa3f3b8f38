import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: OneTimeGrantStore {
    public func insertOneTimeGrant(hash: String, sealed: Data, expiresAt: Date) async throws {
        try await write { db in
            try db.cachedStatement(sql: "INSERT INTO one_time_grants (hash, data, expires_at) VALUES (?, ?, ?)")
                .execute(arguments: [hash, sealed, expiresAt.sql])
        }
    }

    public func insertOneTimeGrantIfAbsent(hash: String, sealed: Data, expiresAt: Date) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO one_time_grants (hash, data, expires_at) VALUES (?, ?, ?)")
                .execute(arguments: [hash, sealed, expiresAt.sql])
            return db.changesCount == 1
        }
    }

    /// Read and delete in one write transaction: SQLite has a single writer, so of two
    /// concurrent takers exactly one finds the row.
    public func takeOneTimeGrant(hash: String) async throws -> (sealed: Data, expiresAt: Date)? {
        try await write { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT data, expires_at FROM one_time_grants WHERE hash = ?"),
                                             arguments: [hash]) else { return nil }
            try db.cachedStatement(sql: "DELETE FROM one_time_grants WHERE hash = ?").execute(arguments: [hash])
            let data: Data = row["data"]
            let expiresAt: Double = row["expires_at"]
            return (data, Date(timeIntervalSince1970: expiresAt))
        }
    }
}
