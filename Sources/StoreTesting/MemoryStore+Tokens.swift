import Foundation
import StoreContracts

extension MemoryStore: AccessTokenStore {
    /// The family and its session (nil when either is missing), and whether the jti was revoked.
    public func accessContext(familyId: String, jti: String) async throws -> AccessContext? {
        try read { tables in
            guard let family = tables.families[familyId], let session = tables.sessions[family.sessionId] else { return nil }
            return AccessContext(family: family, session: session, accessTokenRevoked: tables.revokedAccessTokens[jti] != nil)
        }
    }

    public func insertOpaqueToken(_ token: OpaqueAccessToken) async throws {
        try transaction { try $0.opaqueTokens.insertNew(token, at: token.hash, table: "opaque_access_tokens") }
    }

    public func opaqueToken(hash: String) async throws -> OpaqueAccessToken? {
        try read { $0.opaqueTokens[hash] }
    }

    /// A jti revoked twice keeps its first expiry.
    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        try accessContextWrite { tables in
            if tables.revokedAccessTokens[jti] == nil { tables.revokedAccessTokens[jti] = expiresAt }
        }
    }

    public func isAccessTokenRevoked(jti: String) async throws -> Bool {
        try read { $0.revokedAccessTokens[jti] != nil }
    }

    public var accessContextChanges: UInt64 { accessChanges.value }
}

extension MemoryStore: SigningKeyStore {
    /// Oldest first.
    public func signingKeys() async throws -> [StoredSigningKey] {
        try read { tables in
            tables.signingKeys.values.sorted { $0.createdAt.isBefore($1.createdAt, orElse: $0.kid.precedesInBytes($1.kid)) }
        }
    }

    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        try transaction { try $0.signingKeys.insertNew(key, at: key.kid, table: "signing_keys") }
    }

    /// A key retired before keeps its retirement date; `removeAfter` is set anew.
    public func retireSigningKey(kid: String, at date: Date, removeAfter: Date) async throws {
        try transaction { tables in
            guard var key = tables.signingKeys[kid] else { return }
            key.retiredAt = key.retiredAt ?? date
            key.removeAfter = removeAfter
            tables.signingKeys[kid] = key
        }
    }
}
