import Foundation
import GRDB
import StoreContracts

/// Pending authorizations: rows of `pending_authorizations`, the latest also in ``PendingCache``.
/// The cache changes inside the write that changes the row, where SQLite's write lock orders it
/// with every other write; a write that fails afterwards leaves the id forgotten (a forgotten id
/// is read from the table). A write's turn commits after it (``TurnTransaction``), so for that
/// long the cache can show a change not yet committed; only the browser that holds the id asks
/// for it, and that browser hears of a new id only from the answer sent after the commit.
extension SQLiteStore: PendingAuthorizationStore {
    public func insertPending(_ pending: PendingAuthorization, idHash: String) async throws {
        let data = try pending.storedJSON()
        try await pendingWrite(idHash) { [self] db in
            try db.cachedStatement(sql: "INSERT INTO pending_authorizations (id_hash, data, expires_at) VALUES (?, ?, ?)")
                .execute(arguments: [idHash, data, pending.expiresAt.sql])
            pendingCache.keep(pending, idHash)
        }
    }

    public func pending(idHash: String) async throws -> PendingAuthorization? {
        if let kept = pendingCache.pending(idHash) { return kept }
        let data = try await writerRead { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM pending_authorizations WHERE id_hash = ?"),
                arguments: [idHash])
        }
        return try data.map { try PendingAuthorization.fromStoredJSON($0) }
    }

    public func updatePending(_ pending: PendingAuthorization, idHash: String) async throws {
        let data = try pending.storedJSON()
        try await pendingWrite(idHash) { [self] db in
            try db.cachedStatement(sql: "UPDATE pending_authorizations SET data = ?, expires_at = ? WHERE id_hash = ?")
                .execute(arguments: [data, pending.expiresAt.sql, idHash])
            if db.changesCount == 1 { pendingCache.keep(pending, idHash) } else { pendingCache.forget(idHash) }
        }
    }

    public func consumePending(idHash: String) async throws -> Bool {
        try await pendingWrite(idHash) { [self] db in try deletePending(idHash: idHash, in: db) }
    }

    /// Deletes the pending authorization, and forgets it; whether it was there.
    func deletePending(idHash: String, in db: Database) throws -> Bool {
        pendingCache.forget(idHash)
        try db.cachedStatement(sql: "DELETE FROM pending_authorizations WHERE id_hash = ?").execute(arguments: [idHash])
        return db.changesCount == 1
    }

    /// A short write that changes the pending authorization `idHash` (when given); if it fails,
    /// the id is forgotten, since what the cache was told inside it may not have been committed.
    func pendingWrite<T: Sendable>(_ idHash: String?, _ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await write(updates)
        } catch {
            if let idHash { pendingCache.forget(idHash) }
            throw error
        }
    }
}

extension SQLiteStore: AuthorizationCodeStore {
    public func insertCode(_ code: AuthorizationCode) async throws {
        let data = try code.storedJSON()
        try await write { db in try Self.insert(code, data: data, in: db) }
    }

    /// The code row (`data` is the encoded code), inside whatever transaction `db` is in.
    static func insert(_ code: AuthorizationCode, data: Data, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO authorization_codes (code_hash, data, expires_at) VALUES (?, ?, ?)")
            .execute(arguments: [code.hash, data, code.expiresAt.sql])
    }

    public func code(hash: String) async throws -> AuthorizationCode? {
        let data = try await writerRead { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM authorization_codes WHERE code_hash = ?"),
                arguments: [hash])
        }
        return try data.map { try AuthorizationCode.fromStoredJSON($0) }
    }

    public func redeemCode(hash: String, at date: Date, familyId: String) async throws -> CodeRedemption {
        try await redeemCode(hash: hash, at: date, familyId: familyId, starting: nil)
    }

    public func redeemCode(hash: String, at date: Date, starting family: TokenFamily) async throws -> CodeRedemption {
        try await redeemCode(hash: hash, at: date, familyId: family.id, starting: family)
    }

    private func redeemCode(hash: String, at date: Date, familyId: String, starting family: TokenFamily?) async throws -> CodeRedemption {
        let row = try await write { db -> (Data, Bool, String?)? in
            try db.cachedStatement(sql: """
                UPDATE authorization_codes SET used_at = ?, family_id = ? WHERE code_hash = ? AND used_at IS NULL
                """).execute(arguments: [date.sql, familyId, hash])
            let first = db.changesCount == 1
            if first, let family { try Self.insert(family, in: db) }
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT data, family_id FROM authorization_codes WHERE code_hash = ?"),
                                             arguments: [hash]) else { return nil }
            return (row["data"], first, row["family_id"])
        }
        guard let (data, first, familyId) = row else { return .notFound }
        let code = try AuthorizationCode.fromStoredJSON(data)
        return first ? .redeemed(code) : .alreadyUsed(code, familyId: familyId)
    }
}
