import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// A verified, live access token with what it belongs to.
public struct VerifiedAccessToken: Sendable {
    public let jti: String
    public let scope: String
    public let issuedAt: Date
    public let expiresAt: Date
    public let family: TokenFamily
    public let session: LoginSession
    public let client: ResolvedClient
}

extension BrokerEngine {
    /// Verifies an access token (JWT or opaque) and checks storage: family and session live, the
    /// token not revoked, not expired. Every failure is `invalid_token` with no detail for the caller.
    public func verifyAccessToken(_ token: String) async throws -> VerifiedAccessToken {
        let now = clock.now()
        let state = self.state
        let invalid = OAuthError.invalidToken("The access token is invalid or has expired.")
        let jti: String, familyId: String, scope: String, issuedAt: Date, expiresAt: Date, sessionId: String?
        if token.utf8.contains(UInt8(ascii: ".")) {
            guard let claims = await verifiedClaims(token, keys: state.keys) else { throw invalid }
            (jti, familyId, scope, sessionId) = (claims.jti, claims.fid, claims.scope, claims.sid)
            issuedAt = Date(timeIntervalSince1970: TimeInterval(claims.iat))
            expiresAt = Date(timeIntervalSince1970: TimeInterval(claims.exp))
        } else {
            guard token.utf8.count <= 256,
                  let opaque = try await guarded("opaque token", { try await store.opaqueToken(hash: Secrets.hash(token)) }) else {
                throw invalid
            }
            (jti, familyId, scope, sessionId) = (opaque.jti, opaque.familyId, opaque.scope, nil)
            (issuedAt, expiresAt) = (opaque.issuedAt, opaque.expiresAt)
        }
        guard now < expiresAt else { throw invalid }
        guard let context = try await guarded("access context", { try await store.accessContext(familyId: familyId, jti: jti) }),
              !context.accessTokenRevoked, context.family.revokedAt == nil, context.session.isActive(at: now),
              sessionId == nil || sessionId == context.session.id,
              let client = try await resolveClient(context.family.clientId, state: state) else { throw invalid }
        return VerifiedAccessToken(jti: jti, scope: scope, issuedAt: issuedAt, expiresAt: expiresAt,
                                   family: context.family, session: context.session, client: client)
    }

    /// The claims of a JWT access token whose signature, `typ` and issuer check out (memoized).
    func verifiedClaims(_ token: String, keys: SigningKeyRing) async -> AccessTokenClaims? {
        if let claims = verifiedAccessTokens.value(for: token) { return claims }
        guard let parts = await verifyOwnJWS(token, type: "at+jwt", keys: keys), let claims = AccessTokenClaims(payload: parts.payload),
              claims.iss == issuer else { return nil }
        verifiedAccessTokens.store(claims, for: token)
        return claims
    }

    /// The upstream token of a session, opened from the vault.
    public func upstreamToken(of session: LoginSession) throws -> UpstreamToken? {
        guard let sealed = session.sealedUpstream else { return nil }
        let key = OpenedUpstreamKey(sealed: sealed, sessionId: session.id, authServiceId: session.authServiceId)
        if let opened = openedUpstream.value(for: key) { return opened }
        let data = try vault.open(sealed, Self.upstreamBinding(sessionId: session.id, authServiceId: session.authServiceId))
        metrics.vault("open")
        let token = try UpstreamToken.decode(data)
        openedUpstream.store(token, for: key)
        return token
    }
}

/// Identifies one sealed upstream token: the ciphertext and the row it is bound to.
struct OpenedUpstreamKey: Hashable, Sendable {
    var sealed: Data
    var sessionId: String
    var authServiceId: String
}
