import Foundation
import IdentityCore
import StoreContracts

extension BrokerEngine {
    /// Presenting the token rotated away last within this many seconds returns the same new pair
    /// (concurrent retries from one device) instead of counting as reuse (SPEC §3.3).
    public static let refreshGracePeriod: TimeInterval = 10

    public static func graceBinding(familyId: String) -> Vault.Binding { .init(purpose: "grace", owner: familyId) }

    /// `grant_type=refresh_token`: rotation on every use; reuse of a rotated token revokes the
    /// family; the upstream token is refreshed first when due (SPEC §3.3, §4). A stray
    /// `redirect_uri` is ignored. A token issued to a public client (PKCE, no secret) is refreshed
    /// by possession alone (OAuth 2.1 §4.3); one issued after client authentication needs that
    /// authentication again (SPEC §9.2).
    func refreshTokenGrant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient,
                           state: EngineState) async throws -> TokenResponse {
        let presented = try parameters.require("refresh_token")
        let hash = Secrets.hash(presented)
        let now = clock.now()
        let invalid = OAuthError.invalidGrant("The refresh token is invalid, expired or revoked.")
        guard presented.utf8.count <= 256,
              let (family, match) = try await guarded("refresh lookup", { try await store.family(refreshHash: hash) }) else { throw invalid }
        guard let client = try await resolveClient(family.clientId, state: state), client.isSameClient(as: authenticated.client) else {
            throw OAuthError.invalidGrant("The refresh token was issued to another client.")
        }
        // SPEC §9.2: issued after client authentication, used only with it.
        if family.clientAuthenticated && !authenticated.authenticated {
            throw OAuthError.invalidClient("This refresh token was issued to an authenticated client: authenticate as it.")
        }
        guard family.revokedAt == nil else { throw invalid }
        switch match {
        case .retired:
            try await revokeForReuse(family)
            throw invalid
        case .previous:
            if let response = try openGrace(family, presentedHash: hash, now: now) { return response }
            try await revokeForReuse(family)
            throw invalid
        case .current:
            guard let expiry = family.refreshExpiresAt, now < expiry else { throw invalid }
            guard var session = try await guarded("session", { try await store.session(id: family.sessionId) }),
                  session.isActive(at: now) else { throw invalid }
            do {
                session = try await ensureFreshUpstream(session, authService: client.authService)
            } catch let ended as SessionEnded {
                throw OAuthError.invalidGrant(ended.reason)
            }
            let newToken = Secrets.randomToken()
            let response = try await guarded("mint refreshed tokens") {
                try await mintTokens(session: session, family: family, client: client, refreshToken: newToken,
                                     includeIDToken: Scopes.contains(family.scope, "openid"), includeNonce: false, keys: state.keys)
            }
            let sealed = try vault.seal(try JSONEncoder.sortedCompact.encode(response), Self.graceBinding(familyId: family.id))
            let rotated = try await guarded("rotate refresh token") {
                try await store.rotateRefresh(familyId: family.id, from: hash, to: Secrets.hash(newToken),
                                              expiresAt: refreshExpiry(session: session, service: client.service, now: now),
                                              graceResponse: sealed, at: now)
            }
            if rotated { return response }
            // A concurrent request with the same token won the rotation: answer with its pair.
            guard let latest = try await guarded("refresh reread", { try await store.family(id: family.id) }),
                  latest.revokedAt == nil, let response = try openGrace(latest, presentedHash: hash, now: now) else { throw invalid }
            return response
        }
    }

    /// The pair issued by the last rotation, if `presentedHash` was rotated away within the grace period.
    private func openGrace(_ family: TokenFamily, presentedHash: String, now: Date) throws -> TokenResponse? {
        guard family.previousRefreshHash == presentedHash, let rotatedAt = family.rotatedAt,
              now.timeIntervalSince(rotatedAt) <= Self.refreshGracePeriod, let sealed = family.graceResponse else { return nil }
        let data = try vault.open(sealed, Self.graceBinding(familyId: family.id))
        return try JSONDecoder().decode(TokenResponse.self, from: data)
    }

    private func revokeForReuse(_ family: TokenFamily) async throws {
        try await revokeFamily(family.id, sessionId: family.sessionId, at: clock.now())
        logger.warning("refresh token reuse detected; family revoked", metadata: ["client": "\(family.clientId)"])
    }
}
