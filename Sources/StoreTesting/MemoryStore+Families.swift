import Foundation
import StoreContracts

extension MemoryStore: TokenFamilyStore {
    public func insertFamily(_ family: TokenFamily) async throws {
        try transaction { try $0.insert(family) }
    }

    public func family(id: String) async throws -> TokenFamily? {
        try read { $0.families[id] }
    }

    /// The current token first, then the one the last rotation replaced, then older ones.
    public func family(refreshHash: String) async throws -> (TokenFamily, RefreshTokenMatch)? {
        try read { tables in
            if let current = tables.families.values.first(where: { $0.refreshHash == refreshHash }) { return (current, .current) }
            if let previous = tables.families.values.first(where: { $0.previousRefreshHash == refreshHash }) { return (previous, .previous) }
            guard let id = tables.retiredRefreshTokens[refreshHash], let retired = tables.families[id] else { return nil }
            return (retired, .retired)
        }
    }

    /// Succeeds only while `oldHash` is current and the family unrevoked: the token it replaced
    /// before is retired, and the session extended for the new token and noted as used at `date`.
    public func rotateRefresh(familyId: String, from oldHash: String, to newHash: String, expiresAt: Date,
                              graceResponse: Data?, at date: Date) async throws -> Bool {
        try transaction { tables in
            guard var family = tables.families[familyId], family.refreshHash == oldHash, family.revokedAt == nil else { return false }
            if newHash != oldHash { try tables.requireUnusedRefreshHash(newHash) }
            if let retired = family.previousRefreshHash, tables.retiredRefreshTokens[retired] == nil {
                tables.retiredRefreshTokens[retired] = familyId
            }
            family.refreshHash = newHash
            family.refreshExpiresAt = expiresAt
            family.previousRefreshHash = oldHash
            family.rotatedAt = date
            family.graceResponse = graceResponse
            tables.families[familyId] = family
            if let session = tables.sessions[family.sessionId] {
                var used = session.extended(for: family)
                used.lastUsedAt = date
                tables.sessions[family.sessionId] = used
            }
            return true
        }
    }

    /// Oldest first.
    public func unrevokedFamilies(sessionIds: [String]) async throws -> [TokenFamily] {
        let wanted = Set(sessionIds)
        return try read { tables in
            tables.families.values.filter { $0.revokedAt == nil && wanted.contains($0.sessionId) }
                .sorted { $0.createdAt.isBefore($1.createdAt, orElse: $0.id.precedesInBytes($1.id)) }
        }
    }

    /// True for any family with that id, revoked before or not (it keeps its first date).
    @discardableResult
    public func revokeFamily(id: String, at date: Date) async throws -> Bool {
        try accessContextWrite { tables in
            guard let family = tables.families[id] else { return false }
            tables.revokeFamily(id, family, at: date)
            return true
        }
    }

    /// The sessions of the families it revoked, each once.
    public func revokeFamilies(clientId: String, at date: Date) async throws -> [String] {
        try accessContextWrite { tables in
            var sessions: Set<String> = []
            for (id, family) in tables.families where family.clientId == clientId && family.revokedAt == nil {
                tables.revokeFamily(id, family, at: date)
                sessions.insert(family.sessionId)
            }
            return sessions.sorted()
        }
    }

    /// Live: unrevoked, and a refresh token unexpired at `date` or an issuance (creation or last
    /// rotation) after `issuedAfter`. Only the session ends; its families stay as they are.
    public func endSessionIfUnused(id: String, at date: Date, issuedAfter: Date) async throws -> Bool {
        try accessContextWrite { tables in
            guard let session = tables.sessions[id], session.revokedAt == nil else { return false }
            let live = tables.families.values.contains { family in
                family.sessionId == id && family.revokedAt == nil
                    && ((family.refreshExpiresAt.map { $0 > date } ?? false)
                        || max(family.createdAt, family.rotatedAt ?? family.createdAt) > issuedAfter)
            }
            if live { return false }
            tables.endSession(id, at: date)
            return true
        }
    }
}
