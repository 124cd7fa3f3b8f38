import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts

/// Starts sessions and mints the broker's tokens (docs/protocol.md, "Tokens" and
/// "Sessions and upstream tokens").
struct TokenIssuer: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let familyStore: any TokenFamilyStore
    let accessTokenStore: any AccessTokenStore
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
    /// `amr` is what the sign-in proved (RFC 8176 values, docs/mfa.md).
    func makeSession(identity: ConnectorIdentity, client: ResolvedClient, amr: [String]) throws -> LoginSession {
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
            maxExpiresAt: maxExpiresAt, amr: amr, upstreamSessionKey: identity.upstreamSessionId.map(Secrets.hash))
    }

    /// Creates token family `familyId` for `client` in `session` and mints its first tokens: an
    /// access token, a refresh token when the auth service has `refresh: true`, and an ID token
    /// when `openid` was granted.
    ///
    /// This is where an app instance is bound to the user (docs/security.md, rule 1): the code (or
    /// password grant) was redeemed with the instance's own secret. When the instance turns out to
    /// be bound to someone else, nothing is issued and the session ends unless another app uses it.
    func issueNewFamily(session: LoginSession, client authenticated: AuthenticatedClient, scope: String, nonce: String?,
                        familyId: String, resources: [String]? = nil, claims: ClaimsRequest? = nil, online: Bool = false,
                        keys: SigningKeyRing) async throws -> TokenResponse {
        let client = authenticated.client
        do {
            try await binding.bind(client, to: session)
        } catch {
            _ = try? await context.appRevocation(families: familyStore, sessions: sessionStore).endSessionIfUnused(session.id, at: context.clock.now())
            throw error
        }
        let first = makeFamily(session: session, client: authenticated, scope: scope, nonce: nonce, familyId: familyId,
                               resources: resources, claims: claims, online: online)
        try await familyStore.insertFamily(first.family)
        return try await mintFirst(first, session: session, client: client, keys: keys)
    }

    /// A new family's record, not stored yet, and its first refresh token.
    struct FirstTokens: Sendable {
        let family: TokenFamily
        /// Nil when the auth service has `refresh: false` or the request asked `access_type=online`.
        let refreshToken: String?
    }

    /// Family `familyId` for `client` in `session`, not stored yet: what `issueNewFamily` stores,
    /// for a caller that stores it in a transaction of its own (a code's redemption). Binds nothing:
    /// only for a client that is not an app instance (`InstanceBinding`).
    func makeFamily(session: LoginSession, client authenticated: AuthenticatedClient, scope: String, nonce: String?,
                    familyId: String, resources: [String]?, claims: ClaimsRequest?, online: Bool) -> FirstTokens {
        let now = context.clock.now()
        let client = authenticated.client
        let service = client.service
        // access_type=online asks for no refresh token (docs/protocol.md, "Offline access").
        let refreshToken = service.refresh && !online ? Secrets.randomToken() : nil
        let family = TokenFamily(
            id: familyId, sessionId: session.id, clientId: client.clientId, scope: scope, nonce: nonce, createdAt: now,
            refreshHash: refreshToken.map(Secrets.hash),
            refreshExpiresAt: refreshToken.map { _ in refreshExpiry(session: session, service: service, now: now) },
            clientAuthenticated: authenticated.authenticated, resources: resources, claims: claims, dpopJkt: authenticated.dpopJkt)
        return FirstTokens(family: family, refreshToken: refreshToken)
    }

    /// The first tokens of a family that is stored: its access token, its refresh token, and an
    /// ID token (with the request's nonce) when `openid` was granted.
    /// With `device_sso` granted (and `openid`), a device secret for the session comes along,
    /// its hash in the ID token (docs/native-sso.md).
    func mintFirst(_ first: FirstTokens, session: LoginSession, client: ResolvedClient, keys: SigningKeyRing) async throws -> TokenResponse {
        let openID = Scopes.contains(first.family.scope, "openid")
        let deviceSecret = openID && client.service.nativeSSO && Scopes.contains(first.family.scope, NativeSSO.scope)
            ? try NativeSSO.secret(for: session, dpopJkt: first.family.dpopJkt, vault: context.vault) : nil
        var response = try await mint(session: session, family: first.family, client: client, refreshToken: first.refreshToken,
                                      includeIDToken: openID, includeNonce: true, deviceSecret: deviceSecret, keys: keys)
        response.device_secret = deviceSecret
        return response
    }

    /// A new refresh token lives `refreshTtl`, never past its session's absolute end.
    func refreshExpiry(session: LoginSession, service: AuthService, now: Date) -> Date {
        let expiry = now.addingTimeInterval(TimeInterval(service.refreshTtl))
        return session.maxExpiresAt.map { min($0, expiry) } ?? expiry
    }

    /// The audiences of an access token of `family`: the targets this request narrowed to, else
    /// the family's, else every API its scope names; the `client_id` when that leaves none
    /// (docs/api-resources.md).
    static func audiences(family: TokenFamily, client: ResolvedClient, narrowed: [String]?) -> [String] {
        let audiences = narrowed ?? family.resources ?? client.apiResources.audiences(granted: family.scope)
        return audiences.isEmpty ? [family.clientId] : audiences
    }

    /// Mints an access token (and an ID token when asked) for an existing family. Refreshed ID
    /// tokens carry no nonce: a refresh is not an authentication request (OIDC Core §12.2 errata).
    /// `narrowed` restricts this access token's audiences (a refresh with `resource`).
    /// `act` (token exchange with an actor) goes into a JWT access token, whatever `tokenFormat`;
    /// `notAfter` caps the access token's lifetime (an exchanged token outlives none it came from).
    func mint(session: LoginSession, family: TokenFamily, client: ResolvedClient, refreshToken: String?,
              includeIDToken: Bool, includeNonce: Bool, narrowed: [String]? = nil, act: JSONValue? = nil,
              notAfter: Date? = nil, deviceSecret: String? = nil, keys: SigningKeyRing) async throws -> TokenResponse {
        let now = context.clock.now()
        let service = client.service
        var expiresAt = now.addingTimeInterval(TimeInterval(service.tokenTtl))
        var lifetime = service.tokenTtl
        if let notAfter, notAfter < expiresAt {
            expiresAt = notAfter
            lifetime = max(0, Int(notAfter.timeIntervalSince(now).rounded(.down)))
        }
        let jti = Secrets.randomToken(bytes: 16)
        let accessToken: String
        switch act == nil ? service.tokenFormat : .jwt {
        case .jwt:
            var claims = AccessTokenClaims(
                iss: context.issuer, sub: session.subject, aud: Audience(Self.audiences(family: family, client: client, narrowed: narrowed)),
                exp: expiresAt.epochSeconds, nbf: now.epochSeconds, iat: now.epochSeconds, jti: jti, client_id: family.clientId,
                scope: family.scope, sid: session.id, fid: family.id, auth_time: session.authTime.epochSeconds,
                email: Scopes.contains(family.scope, "email") ? session.attributes["email"]?.stringValue : nil,
                roles: Scopes.contains(family.scope, "roles") ? session.groups ?? [] : nil, amr: session.amrClaim)
            claims.act = act
            claims.cnf = family.dpopJkt.map { .object(["jkt": .string($0)]) }
            accessToken = try keys.sign(claims.serialized, type: "at+jwt")
        case .opaque:
            accessToken = Secrets.randomToken()
            try await accessTokenStore.insertOpaqueToken(OpaqueAccessToken(
                hash: Secrets.hash(accessToken), jti: jti, familyId: family.id, clientId: family.clientId,
                scope: family.scope, issuedAt: now, expiresAt: expiresAt))
        }
        var idToken: String?
        if includeIDToken {
            var claims = IDTokenClaims(
                iss: context.issuer, sub: session.subject, aud: family.clientId, exp: expiresAt.epochSeconds,
                iat: now.epochSeconds, auth_time: session.authTime.epochSeconds, nonce: includeNonce ? family.nonce : nil,
                at_hash: AccessTokenHash.compute(accessToken), sid: session.id)
            claims.addUserClaims(of: session, scope: family.scope, requested: family.claims?.idToken ?? [])
            claims.acr = AuthenticationContext.acr(of: session)
            claims.amr = session.amrClaim
            claims.ds_hash = deviceSecret.map(AccessTokenHash.compute)
            idToken = try keys.sign(claims.serialized, type: "JWT")
        }
        // RFC 9449 §5: a DPoP-bound token says so in its type.
        return TokenResponse(access_token: accessToken, token_type: family.dpopJkt == nil ? "Bearer" : "DPoP", expires_in: lifetime,
                             refresh_token: refreshToken, id_token: idToken, scope: family.scope)
    }
}

extension IDTokenClaims {
    /// The user's claims the granted scopes and the `claims` request ask for (``UserClaims``).
    mutating func addUserClaims(of session: LoginSession, scope: String, requested: [String]) {
        let claims = UserClaims.claims(of: session, scope: scope, requested: requested)
        email = claims["email"]?.stringValue
        if case .bool(let verified)? = claims["email_verified"] { email_verified = verified }
        name = claims["name"]?.stringValue
        preferred_username = claims["preferred_username"]?.stringValue
        if case .array(let values)? = claims["groups"] { groups = values.compactMap(\.stringValue) }
    }
}

/// The authentication context class of a sign-in (OIDC Core 2, `acr`).
public enum AuthenticationContext {
    public static let password = "urn:idconnect:acr:pwd"
    public static let secondFactor = "urn:idconnect:acr:mfa"

    static func acr(of session: LoginSession) -> String { session.usedSecondFactor ? secondFactor : password }
}

extension LoginSession {
    /// The `amr` claim (RFC 8176): what the sign-in proved; absent when nothing was recorded.
    var amrClaim: [String]? { amr.isEmpty ? nil : amr }

    /// The `groups` attribute as strings; nil when there are none.
    var groups: [String]? {
        guard case .array(let values) = attributes["groups"] else { return nil }
        let groups = values.compactMap(\.stringValue)
        return groups.isEmpty ? nil : groups
    }
}
