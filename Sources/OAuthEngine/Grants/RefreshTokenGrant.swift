import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// `grant_type=refresh_token`: rotation on every use; reuse of a rotated token revokes the family;
/// the upstream token is refreshed first when due (docs/protocol.md, "POST /oauth/token" and
/// "Sessions and upstream tokens"). A stray `redirect_uri` is ignored. A token issued to a public
/// client (PKCE, no secret) is refreshed by possession alone (OAuth 2.1 §4.3); one issued after
/// client authentication needs that authentication again (docs/security.md, rule 2).
struct RefreshTokenGrant: TokenGrant {
    static let grantType = "refresh_token"
    let families: any TokenFamilyStore
    let sessions: any SessionStore
    let clients: ClientRegistry
    let refresher: UpstreamRefresher
    let issuer: TokenIssuer
    let revocation: Revocation
    let live: LiveState
    let clock: any BrokerClock

    /// Presenting the token rotated away last within this many seconds returns the same new pair
    /// (concurrent retries from one device) instead of counting as reuse.
    static let gracePeriod: TimeInterval = 10

    func grant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient, keys: SigningKeyRing,
               clientAddress: String?) async throws -> TokenResponse {
        let presented = try parameters.require("refresh_token")
        let hash = Secrets.hash(presented)
        let now = clock.now()
        let invalid = OAuthError.invalidGrant("The refresh token is invalid, expired or revoked.")
        guard presented.utf8.count <= 256,
              let (family, match) = try await families.family(refreshHash: hash) else { throw invalid }
        guard let client = try await clients.resolve(family.clientId), client.isSameClient(as: authenticated.client) else {
            throw OAuthError.invalidGrant("The refresh token was issued to another client.")
        }
        if family.clientAuthenticated && !authenticated.authenticated {
            throw OAuthError.invalidClient("This refresh token was issued to an authenticated client: authenticate as it.")
        }
        guard family.revokedAt == nil else { throw invalid }
        try Self.checkBinding(of: family, client: authenticated)
        switch match {
        case .retired:
            try await revocation.revokeForReuse(family)
            throw invalid
        case .previous:
            if let response = try openGrace(family, presentedHash: hash, now: now) { return response }
            try await revocation.revokeForReuse(family)
            throw invalid
        case .current:
            // RFC 8707 §2.2: a refresh may narrow the grant's targets for this token, never widen them.
            let narrowed = try client.apiResources.targets(parameters.resources, granted: family.scope,
                                                           within: TokenIssuer.audiences(family: family, client: client, narrowed: nil))
            return try await rotate(family, presentedHash: hash, client: client, narrowed: narrowed, keys: keys, now: now)
        }
    }

    private func rotate(_ family: TokenFamily, presentedHash hash: String, client: ResolvedClient, narrowed: [String]?,
                        keys: SigningKeyRing, now: Date) async throws -> TokenResponse {
        let invalid = OAuthError.invalidGrant("The refresh token is invalid, expired or revoked.")
        guard let expiry = family.refreshExpiresAt, now < expiry else { throw invalid }
        guard var session = try await sessions.session(id: family.sessionId),
              session.isActive(at: now) else { throw invalid }
        do {
            session = try await refresher.ensureFresh(session, authService: client.authService)
        } catch let ended as SessionEnded {
            throw OAuthError.invalidGrant(ended.reason)
        }
        let newToken = Secrets.randomToken()
        let response = try await issuer.mint(session: session, family: family, client: client, refreshToken: newToken,
                              includeIDToken: Scopes.contains(family.scope, "openid"), includeNonce: false,
                              narrowed: narrowed, keys: keys)
        let sealed = try live.snapshot.vault.seal(Data(response.serialized), VaultBindings.grace(familyId: family.id))
        let rotated = try await families.rotateRefresh(familyId: family.id, from: hash, to: Secrets.hash(newToken),
                                         expiresAt: issuer.refreshExpiry(session: session, service: client.service, now: now),
                                         graceResponse: sealed, at: now)
        if rotated { return response }
        // A concurrent request with the same token won the rotation: answer with its pair.
        guard let latest = try await families.family(id: family.id),
              latest.revokedAt == nil, let response = try openGrace(latest, presentedHash: hash, now: now) else { throw invalid }
        return response
    }

    /// DPoP (RFC 9449 §5, docs/dpop.md): a family bound to a key is refreshed only with a proof of
    /// that key, whatever the client; a bearer family stays bearer (its tokens say `Bearer`) unless
    /// the client must now use DPoP, which needs a new sign-in.
    static func checkBinding(of family: TokenFamily, client authenticated: AuthenticatedClient) throws {
        if let bound = family.dpopJkt {
            guard let proven = authenticated.dpopJkt, Secrets.constantTimeEquals(proven, bound) else {
                throw DPoPGate.invalidProof("This refresh token is bound to a DPoP key: send a DPoP proof of that key.", resource: false)
            }
        } else if DPoPGate.isRequired(for: authenticated.client) {
            throw OAuthError.invalidGrant("This refresh token was issued without DPoP and this client must use DPoP: sign in again.")
        }
    }

    /// The pair issued by the last rotation, if `presentedHash` was rotated away within the grace period.
    private func openGrace(_ family: TokenFamily, presentedHash: String, now: Date) throws -> TokenResponse? {
        guard let previous = family.previousRefreshHash, Secrets.constantTimeEquals(previous, presentedHash),
              let rotatedAt = family.rotatedAt, now.timeIntervalSince(rotatedAt) <= Self.gracePeriod,
              let sealed = family.graceResponse else { return nil }
        let data = try live.snapshot.vault.open(sealed, VaultBindings.grace(familyId: family.id))
        return try JSONDecoder().decode(TokenResponse.self, from: data)
    }
}
