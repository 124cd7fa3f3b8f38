import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts

/// Starts sessions and mints the broker's tokens (docs/protocol.md, "Tokens" and
/// "Sessions and upstream tokens").
struct TokenIssuer: Sendable {
    let context: EngineContext
    let upstream: UpstreamVault
    let binding: InstanceBinding

    /// The session for what the connector returned, not stored yet; the upstream token is sealed.
    ///
    /// It ends with its longest token lifetime, moved out by new refresh tokens, but never past
    /// its absolute end: sign-in + `sessionMaxAge`, or the identity source's own session end
    /// when that comes first (SAML `SessionNotOnOrAfter`,
    /// docs/protocol.md, "Sessions and upstream tokens"; docs/security.md, rule 11). A sign-in at a
    /// source the broker cannot re-check (SAML, static users) lasts at most `refreshTtl`
    /// (docs/protocol.md, "Sessions and upstream tokens").
    func makeSession(identity: ConnectorIdentity, client: ResolvedClient) throws -> LoginSession {
        let now = context.clock.now()
        let id = Secrets.randomToken(bytes: 24)
        let service = client.service
        let sealed = try identity.upstream.map { try upstream.seal($0, sessionId: id, authServiceId: service.id) }
        var maxExpiresAt = now.addingTimeInterval(TimeInterval(service.sessionMaxAge))
        if let upstreamEnd = identity.sessionEndsAt { maxExpiresAt = min(maxExpiresAt, upstreamEnd) }
        if !(client.authService.connector is any RefreshingConnector) {
            maxExpiresAt = min(maxExpiresAt, now.addingTimeInterval(TimeInterval(max(service.refreshTtl, service.tokenTtl))))
        }
        let lifetime = service.refresh ? max(service.refreshTtl, service.tokenTtl) : service.tokenTtl
        return LoginSession(
            id: id, subject: SubjectIdentifier.make(namespace: client.authService.namespace, userId: identity.userId),
            userId: identity.userId, appKey: client.appKey, authServiceId: service.id,
            attributes: identity.attributes, sealedUpstream: sealed, upstreamExpiresAt: identity.upstream?.expiresAt,
            authTime: now, createdAt: now, expiresAt: min(now.addingTimeInterval(TimeInterval(lifetime)), maxExpiresAt),
            maxExpiresAt: maxExpiresAt, upstreamSessionKey: identity.upstreamSessionId.map(Secrets.hash))
    }

    /// Creates token family `familyId` for `client` in `session` and mints its first tokens: an
    /// access token, a refresh token when the auth service has `refresh: true`, and an ID token
    /// when `openid` was granted.
    ///
    /// This is where an app instance is bound to the user (docs/security.md, rule 1): the code (or
    /// password grant) was redeemed with the instance's own secret. When the instance turns out to
    /// be bound to someone else, nothing is issued and the session ends unless another app uses it.
    func issueNewFamily(session: LoginSession, client authenticated: AuthenticatedClient, scope: String, nonce: String?,
                        familyId: String, keys: SigningKeyRing) async throws -> TokenResponse {
        let client = authenticated.client
        do {
            try await binding.bind(client, to: session)
        } catch {
            _ = try? await context.appRevocation.endSessionIfUnused(session.id, at: context.clock.now())
            throw error
        }
        let now = context.clock.now()
        let service = client.service
        let refreshToken = service.refresh ? Secrets.randomToken() : nil
        let family = TokenFamily(
            id: familyId, sessionId: session.id, clientId: client.clientId, scope: scope, nonce: nonce, createdAt: now,
            refreshHash: refreshToken.map(Secrets.hash),
            refreshExpiresAt: refreshToken.map { _ in refreshExpiry(session: session, service: service, now: now) },
            clientAuthenticated: authenticated.authenticated)
        try await context.store.insertFamily(family)
        return try await mint(session: session, family: family, client: client, refreshToken: refreshToken,
                              includeIDToken: Scopes.contains(scope, "openid"), includeNonce: true, keys: keys)
    }

    /// A new refresh token lives `refreshTtl`, never past its session's absolute end.
    func refreshExpiry(session: LoginSession, service: AuthService, now: Date) -> Date {
        let expiry = now.addingTimeInterval(TimeInterval(service.refreshTtl))
        return session.maxExpiresAt.map { min($0, expiry) } ?? expiry
    }

    /// Mints an access token (and an ID token when asked) for an existing family. Refreshed ID
    /// tokens carry no nonce: a refresh is not an authentication request (OIDC Core §12.2 errata).
    func mint(session: LoginSession, family: TokenFamily, client: ResolvedClient, refreshToken: String?,
              includeIDToken: Bool, includeNonce: Bool, keys: SigningKeyRing) async throws -> TokenResponse {
        let now = context.clock.now()
        let service = client.service
        let expiresAt = now.addingTimeInterval(TimeInterval(service.tokenTtl))
        let jti = Secrets.randomToken(bytes: 16)
        let accessToken: String
        switch service.tokenFormat {
        case .jwt:
            let claims = AccessTokenClaims(
                iss: context.issuer, sub: session.subject, aud: family.clientId, exp: expiresAt.epochSeconds,
                iat: now.epochSeconds, jti: jti, client_id: family.clientId, scope: family.scope,
                sid: session.id, fid: family.id, auth_time: session.authTime.epochSeconds)
            accessToken = try keys.sign(try JSONEncoder.sortedCompact.encode(claims), type: "at+jwt")
        case .opaque:
            accessToken = Secrets.randomToken()
            try await context.store.insertOpaqueToken(OpaqueAccessToken(
                hash: Secrets.hash(accessToken), jti: jti, familyId: family.id, clientId: family.clientId,
                scope: family.scope, issuedAt: now, expiresAt: expiresAt))
        }
        var idToken: String?
        if includeIDToken {
            var claims = IDTokenClaims(
                iss: context.issuer, sub: session.subject, aud: family.clientId, exp: expiresAt.epochSeconds,
                iat: now.epochSeconds, auth_time: session.authTime.epochSeconds, nonce: includeNonce ? family.nonce : nil,
                at_hash: AccessTokenHash.compute(accessToken), sid: session.id)
            claims.addUserClaims(of: session, scope: family.scope)
            idToken = try keys.sign(try JSONEncoder.sortedCompact.encode(claims), type: "JWT")
        }
        return TokenResponse(access_token: accessToken, token_type: "Bearer", expires_in: service.tokenTtl,
                             refresh_token: refreshToken, id_token: idToken, scope: family.scope)
    }
}

extension IDTokenClaims {
    /// The user's claims the granted scopes ask for, and nothing else (docs/security.md, rule 14):
    /// `email` with scope `email`, `name` and `preferred_username` with `profile`, `groups` with
    /// `groups`.
    mutating func addUserClaims(of session: LoginSession, scope: String) {
        if Scopes.contains(scope, "email") { email = session.attributes["email"]?.stringValue }
        if Scopes.contains(scope, "profile") {
            name = session.attributes["name"]?.stringValue
            preferred_username = session.userId
        }
        if Scopes.contains(scope, "groups") { groups = session.groups }
    }
}

extension LoginSession {
    /// The `groups` attribute as strings; nil when there are none.
    var groups: [String]? {
        guard case .array(let values) = attributes["groups"] else { return nil }
        let groups = values.compactMap(\.stringValue)
        return groups.isEmpty ? nil : groups
    }
}
