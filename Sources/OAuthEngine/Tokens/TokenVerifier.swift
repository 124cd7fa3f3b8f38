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
    /// The token's `aud`: its claim for a JWT, what the family grants for an opaque token.
    public let audiences: [String]
    /// A JWT's `act` (token exchange with an actor, RFC 8693 §4.1).
    public var act: JSONValue?
}

/// Checks the broker's own tokens (docs/protocol.md, "Tokens" and "GET /oauth/validate"):
/// signature, type and issuer, then storage — family and session live, the token not revoked, not
/// expired.
struct TokenVerifier: Sendable {
    let context: EngineContext
    let accessTokenStore: any AccessTokenStore
    let clients: ClientRegistry
    let keys: SigningKeyReloader
    /// Access tokens whose signature, type and issuer checked out, by their exact text, with their
    /// claims: backends validate the same token many times, and the signature check and claim
    /// parsing were the largest share of a validate. Expiry and every storage check still run
    /// each time; new keys or configuration start it empty, so a removed key never verifies from memory.
    let verified: BoundedCache<SignedTokenKey, AccessTokenClaims>
    /// Access contexts read in the last moment (at most `AccessContextCache.maximumAge`).
    let contexts: AccessContextCache
    /// Opaque token records by token hash.
    let opaque: BoundedCache<String, OpaqueAccessToken>
    /// Whether the token may be used as it was presented (DPoP-bound tokens, docs/dpop.md).
    let dpop: DPoPGate

    /// A live token, used as `presented` allows: a DPoP-bound token only with a proof of its key
    /// (``DPoPGate/checkUse(of:binding:client:presented:)``). A bad token is `invalid_token` with
    /// no detail for the caller.
    func verifyAccessToken(_ token: String, presented: TokenPresentation) async throws -> VerifiedAccessToken {
        let now = context.clock.now()
        let state = context.state
        let invalid = OAuthError.invalidToken("The access token is invalid or has expired.")
        let jti: String, familyId: String, scope: String, issuedAt: Date, expiresAt: Date, sessionId: String?
        var audiences: [String]?
        var act: JSONValue?
        if token.utf8.contains(UInt8(ascii: ".")) {
            guard let claims = await verifiedClaims(token, keys: state.keys) else { throw invalid }
            (jti, familyId, scope, sessionId) = (claims.jti, claims.fid, claims.scope, claims.sid)
            audiences = claims.aud.values
            act = claims.act
            issuedAt = Date(timeIntervalSince1970: TimeInterval(claims.iat))
            expiresAt = Date(timeIntervalSince1970: TimeInterval(claims.exp))
        } else {
            guard token.utf8.count <= 256, let opaque = try await opaqueRecord(token) else { throw invalid }
            (jti, familyId, scope, sessionId) = (opaque.jti, opaque.familyId, opaque.scope, nil)
            (issuedAt, expiresAt) = (opaque.issuedAt, opaque.expiresAt)
        }
        guard now < expiresAt else { throw invalid }
        guard let access = try await liveAccess(familyId: familyId, jti: jti, sessionId: sessionId, now: now),
              let client = try await clients.resolve(access.family.clientId, in: state) else { throw invalid }
        try await dpop.checkUse(of: token, binding: access.family.dpopJkt, client: client, presented: presented)
        return VerifiedAccessToken(jti: jti, scope: scope, issuedAt: issuedAt, expiresAt: expiresAt,
                                   family: access.family, session: access.session, client: client,
                                   audiences: audiences ?? TokenIssuer.audiences(family: access.family, client: client, narrowed: nil),
                                   act: act)
    }

    /// The token's access context when it lets the token through (token, family and session live,
    /// the JWT's `sid` its session): a recent read from ``contexts`` when that one does and its
    /// upstream token is not due for a refresh, else a read from the store.
    func liveAccess(familyId: String, jti: String, sessionId: String?, now: Date) async throws -> AccessContext? {
        func admits(_ access: AccessContext) -> Bool {
            !access.accessTokenRevoked && access.family.revokedAt == nil && access.session.isActive(at: now)
                && (sessionId == nil || sessionId == access.session.id)
        }
        let changes = accessTokenStore.accessContextChanges
        if let cached = contexts.context(familyId: familyId, jti: jti, changes: changes), admits(cached),
           cached.session.upstreamExpiresAt.map({ $0.timeIntervalSince(now) > UpstreamRefresher.margin }) ?? true {
            return cached
        }
        let readAt = ContinuousClock.now
        guard let access = try await accessTokenStore.accessContext(familyId: familyId, jti: jti),
              admits(access) else { return nil }
        contexts.store(access, familyId: familyId, jti: jti, changes: changes, readAt: readAt)
        return access
    }

    /// An opaque token's record (memoized: the record never changes; whether the token is still
    /// live is its access context's business).
    func opaqueRecord(_ token: String) async throws -> OpaqueAccessToken? {
        let hash = Secrets.hash(token)
        if let record = opaque.value(for: hash) { return record }
        guard let record = try await accessTokenStore.opaqueToken(hash: hash) else { return nil }
        opaque.store(record, for: hash)
        return record
    }

    /// The claims of a JWT access token that passes its policy (signature, `typ`, issuer, claims;
    /// memoized).
    func verifiedClaims(_ token: String, keys ring: SigningKeyRing) async -> AccessTokenClaims? {
        let key = SignedTokenKey(token: token)
        if let claims = verified.value(for: key) { return claims }
        guard let jwt = await keys.verify(token, policy: BrokerJWTPolicies.accessToken(issuer: context.issuer), with: ring),
              let claims = AccessTokenClaims(claims: jwt.claims) else { return nil }
        verified.store(claims, for: key)
        return claims
    }

    /// jti, family and expiry of an access token whose signature (or storage record) is genuine,
    /// expired or not (revocation of an access token).
    func identity(of token: String) async throws -> (jti: String, familyId: String, expiresAt: Date)? {
        if token.utf8.contains(UInt8(ascii: ".")) {
            guard let jwt = await keys.verify(token, policy: BrokerJWTPolicies.accessToken(issuer: context.issuer),
                                              with: context.state.keys),
                  let claims = AccessTokenClaims(claims: jwt.claims) else { return nil }
            return (claims.jti, claims.fid, Date(timeIntervalSince1970: TimeInterval(claims.exp)))
        }
        guard token.utf8.count <= 256, let opaque = try await opaqueRecord(token) else { return nil }
        return (opaque.jti, opaque.familyId, opaque.expiresAt)
    }
}
