import Foundation
import IdentityCore

/// An authorization in progress: `GET /oauth/auth` or `POST /oauth/auth` started it, a sign-in
/// finishes it. Stored under the hash of its id (the id is in the temp login URI).
public struct PendingAuthorization: Sendable, Codable, Equatable {
    /// How the sign-in is expected to arrive.
    public enum Mode: String, Sendable, Codable {
        /// The hosted login page: the POST must carry the CSRF token bound to the browser.
        case browser
        /// The automated grant (`temp_login_uri`) or a customer's own login page.
        case api
        /// A redirect connector (SAML, OAuth2, OIDC) is signing the user in upstream.
        case upstream
    }

    public var clientId: String
    public var appKey: String
    public var authServiceId: String
    public var redirectURI: String
    public var scope: String
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var mode: Mode
    /// Hash of the browser binding cookie of the browser that started it (SPEC §9.4, §9.10): the
    /// login form, the upstream callback and the SAML ACS finish it only in that browser, and only
    /// that browser gets the SSO cookie. Nil for the API-mode temp login URI.
    public var browserHash: String?
    public var prompt: String?
    public var loginHint: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// Connector state for redirect sign-ins (upstream state, PKCE verifier, request id), sealed.
    public var upstreamState: Data?
    public var failedAttempts: Int
    /// The message the login page shows after a failed attempt.
    public var lastError: String?

    public init(clientId: String, appKey: String, authServiceId: String, redirectURI: String, scope: String,
                state: String?, nonce: String?, codeChallenge: String?, mode: Mode, browserHash: String? = nil,
                prompt: String? = nil, loginHint: String? = nil, createdAt: Date, expiresAt: Date,
                upstreamState: Data? = nil, failedAttempts: Int = 0, lastError: String? = nil) {
        self.clientId = clientId
        self.appKey = appKey
        self.authServiceId = authServiceId
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.mode = mode
        self.browserHash = browserHash
        self.prompt = prompt
        self.loginHint = loginHint
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.upstreamState = upstreamState
        self.failedAttempts = failedAttempts
        self.lastError = lastError
    }
}

/// An authorization code, stored under its hash. Single use (SPEC §3.3).
public struct AuthorizationCode: Sendable, Codable, Equatable {
    public var hash: String
    public var clientId: String
    public var redirectURI: String
    public var scope: String
    public var nonce: String?
    public var codeChallenge: String?
    public var sessionId: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(hash: String, clientId: String, redirectURI: String, scope: String, nonce: String?,
                codeChallenge: String?, sessionId: String, createdAt: Date, expiresAt: Date) {
        self.hash = hash
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.scope = scope
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.sessionId = sessionId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What happened when a code was presented.
public enum CodeRedemption: Sendable, Equatable {
    /// First use: the caller may issue tokens.
    case redeemed(AuthorizationCode)
    /// Second use: refuse, and revoke the family the first use created (RFC 6749 §10.5).
    case alreadyUsed(AuthorizationCode, familyId: String?)
    case notFound
}

/// A sign-in at an identity source (SPEC §4): who, what the source said, the sealed upstream token.
public struct LoginSession: Sendable, Equatable {
    public var id: String
    /// The broker's stable subject for (auth service, upstream user id).
    public var subject: String
    public var userId: String
    public var appKey: String
    public var authServiceId: String
    public var attributes: [String: JSONValue]
    /// The upstream token sealed by the vault, if the connector issued one.
    public var sealedUpstream: Data?
    public var upstreamExpiresAt: Date?
    public var authTime: Date
    public var createdAt: Date
    /// After this the session is over whatever happens (longest refresh TTL, SAML session end).
    /// New refresh tokens move it out, never past `maxExpiresAt`.
    public var expiresAt: Date
    /// The absolute end: sign-in + `sessionMaxAge`, or earlier when the identity source ends its
    /// session sooner (SAML `SessionNotOnOrAfter`). Nothing extends a session past it. Nil only
    /// for sessions stored before the bound existed.
    public var maxExpiresAt: Date?
    public var revokedAt: Date?
    /// Bumped on every upstream update, for compare-and-swap.
    public var version: Int

    public init(id: String, subject: String, userId: String, appKey: String, authServiceId: String,
                attributes: [String: JSONValue], sealedUpstream: Data?, upstreamExpiresAt: Date?,
                authTime: Date, createdAt: Date, expiresAt: Date, maxExpiresAt: Date? = nil, revokedAt: Date? = nil,
                version: Int = 0) {
        self.id = id
        self.subject = subject
        self.userId = userId
        self.appKey = appKey
        self.authServiceId = authServiceId
        self.attributes = attributes
        self.sealedUpstream = sealedUpstream
        self.upstreamExpiresAt = upstreamExpiresAt
        self.authTime = authTime
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.maxExpiresAt = maxExpiresAt
        self.revokedAt = revokedAt
        self.version = version
    }

    public func isActive(at now: Date) -> Bool { revokedAt == nil && now < expiresAt }
}

/// The tokens one client got from one code or password grant: access tokens point at it,
/// refresh tokens rotate inside it, revoking it revokes them all.
public struct TokenFamily: Sendable, Equatable {
    public var id: String
    public var sessionId: String
    public var clientId: String
    public var scope: String
    public var nonce: String?
    public var createdAt: Date
    public var revokedAt: Date?
    /// Hash of the refresh token that is valid now (nil when the auth service issues none).
    public var refreshHash: String?
    public var refreshExpiresAt: Date?
    /// Hash of the token rotated away last, and when: presenting it again within the grace
    /// period returns `graceResponse`; later it revokes the family.
    public var previousRefreshHash: String?
    public var rotatedAt: Date?
    /// The sealed token response of the last rotation.
    public var graceResponse: Data?
    /// The client proved its secret when the family was issued: its refresh tokens then need the
    /// same client authentication again (a stolen refresh token alone is not enough).
    public var clientAuthenticated: Bool

    public init(id: String, sessionId: String, clientId: String, scope: String, nonce: String?, createdAt: Date,
                revokedAt: Date? = nil, refreshHash: String?, refreshExpiresAt: Date?, previousRefreshHash: String? = nil,
                rotatedAt: Date? = nil, graceResponse: Data? = nil, clientAuthenticated: Bool = false) {
        self.id = id
        self.sessionId = sessionId
        self.clientId = clientId
        self.scope = scope
        self.nonce = nonce
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.refreshHash = refreshHash
        self.refreshExpiresAt = refreshExpiresAt
        self.previousRefreshHash = previousRefreshHash
        self.rotatedAt = rotatedAt
        self.graceResponse = graceResponse
        self.clientAuthenticated = clientAuthenticated
    }
}

/// An opaque access token (auth services with `tokenFormat: opaque`), stored under its hash.
public struct OpaqueAccessToken: Sendable, Codable, Equatable {
    public var hash: String
    public var jti: String
    public var familyId: String
    public var clientId: String
    public var scope: String
    public var issuedAt: Date
    public var expiresAt: Date

    public init(hash: String, jti: String, familyId: String, clientId: String, scope: String, issuedAt: Date, expiresAt: Date) {
        self.hash = hash
        self.jti = jti
        self.familyId = familyId
        self.clientId = clientId
        self.scope = scope
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// A token signing key. The private key is sealed by the vault.
public struct StoredSigningKey: Sendable, Equatable {
    public var kid: String
    public var algorithm: String
    public var sealedPrivateKey: Data
    public var createdAt: Date
    /// When it stopped signing (a newer key took over); nil while active.
    public var retiredAt: Date?
    /// When it may leave the JWKS (no token it signed is still valid).
    public var removeAfter: Date?

    public init(kid: String, algorithm: String, sealedPrivateKey: Data, createdAt: Date, retiredAt: Date? = nil, removeAfter: Date? = nil) {
        self.kid = kid
        self.algorithm = algorithm
        self.sealedPrivateKey = sealedPrivateKey
        self.createdAt = createdAt
        self.retiredAt = retiredAt
        self.removeAfter = removeAfter
    }
}

/// How a presented refresh token relates to its family.
public enum RefreshTokenMatch: Sendable, Equatable {
    case current
    /// Rotated away by the last rotation.
    case previous
    /// Rotated away earlier: presenting it is reuse.
    case retired
}

/// A family and its session, read together for token validation.
public struct AccessContext: Sendable, Equatable {
    public var family: TokenFamily
    public var session: LoginSession
    /// The access token with this jti was revoked on its own (RFC 7009).
    public var accessTokenRevoked: Bool

    public init(family: TokenFamily, session: LoginSession, accessTokenRevoked: Bool) {
        self.family = family
        self.session = session
        self.accessTokenRevoked = accessTokenRevoked
    }
}

/// The sign-ins one browser holds: per auth service namespace, the sessions it signed in with,
/// most recent first.
public struct SSORecord: Sendable, Codable, Equatable {
    public struct Entry: Sendable, Codable, Equatable {
        public var namespace: String
        public var sessionId: String
        public var userId: String
        public var signedInAt: Date

        public init(namespace: String, sessionId: String, userId: String, signedInAt: Date) {
            self.namespace = namespace
            self.sessionId = sessionId
            self.userId = userId
            self.signedInAt = signedInAt
        }
    }

    public var entries: [Entry]
    public var expiresAt: Date

    public init(entries: [Entry], expiresAt: Date) {
        self.entries = entries
        self.expiresAt = expiresAt
    }
}

/// One vault-sealed value in storage.
public struct SealedValue: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// `sessions.upstream`: owner = session id, scope = auth service id.
        case sessionUpstream
        /// `signing_keys.private_key`: owner = kid.
        case signingKey
        /// `token_families.grace_response`: owner = family id.
        case refreshGrace
    }

    public var kind: Kind
    /// The owning row's id (the vault binding's owner).
    public var id: String
    /// The binding's scope (auth service id for upstream tokens, empty otherwise).
    public var scope: String
    public var data: Data

    public init(kind: Kind, id: String, scope: String, data: Data) {
        self.kind = kind
        self.id = id
        self.scope = scope
        self.data = data
    }
}
