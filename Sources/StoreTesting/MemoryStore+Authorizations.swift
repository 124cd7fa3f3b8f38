import Foundation
import StoreContracts

extension MemoryStore: PendingAuthorizationStore {
    public func insertPending(_ pending: PendingAuthorization, idHash: String) async throws {
        try transaction { try $0.pending.insertNew(pending, at: idHash, table: "pending_authorizations") }
    }

    public func pending(idHash: String) async throws -> PendingAuthorization? {
        try read { $0.pending[idHash] }
    }

    /// Replaces it when it is still there; a pending authorization already gone stays gone.
    public func updatePending(_ pending: PendingAuthorization, idHash: String) async throws {
        try transaction { tables in
            if tables.pending[idHash] != nil { tables.pending[idHash] = pending }
        }
    }

    public func consumePending(idHash: String) async throws -> Bool {
        try transaction { $0.pending.removeValue(forKey: idHash) != nil }
    }
}

extension MemoryStore: AuthorizationCodeStore {
    public func insertCode(_ code: AuthorizationCode) async throws {
        try transaction { try $0.codes.insertNew(CodeRow(code: code), at: code.hash, table: "authorization_codes") }
    }

    public func code(hash: String) async throws -> AuthorizationCode? {
        try read { $0.codes[hash]?.code }
    }

    public func redeemCode(hash: String, at date: Date, familyId: String) async throws -> CodeRedemption {
        try transaction { try $0.redeemCode(hash: hash, at: date, familyId: familyId, starting: nil) }
    }

    public func redeemCode(hash: String, at date: Date, starting family: TokenFamily) async throws -> CodeRedemption {
        try transaction { try $0.redeemCode(hash: hash, at: date, familyId: family.id, starting: family) }
    }
}

extension MemoryTables {
    /// Marks an unused code used by `familyId` (storing `family`, extending its session, when
    /// given); a used code names the family its first redemption recorded.
    mutating func redeemCode(hash: String, at date: Date, familyId: String, starting family: TokenFamily?) throws -> CodeRedemption {
        guard var row = codes[hash] else { return .notFound }
        guard row.usedAt == nil else { return .alreadyUsed(row.code, familyId: row.familyId) }
        row.usedAt = date
        row.familyId = familyId
        codes[hash] = row
        if let family { try insert(family) }
        return .redeemed(row.code)
    }
}
