import Foundation
import IdentityCore

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
    /// RFC 8707 targets the grant was narrowed to (nil: every API its scope names); refreshes
    /// may narrow further, never widen.
    public var resources: [String]?
    /// OIDC `claims` asked for at authorization: what the ID tokens and userinfo add.
    public var claims: ClaimsRequest?
    /// DPoP (RFC 9449): the JWK thumbprint of the key every token of the family is bound to, fixed
    /// when the family is issued; nil for bearer tokens.
    public var dpopJkt: String?

    public init(id: String, sessionId: String, clientId: String, scope: String, nonce: String?, createdAt: Date,
                revokedAt: Date? = nil, refreshHash: String?, refreshExpiresAt: Date?, previousRefreshHash: String? = nil,
                rotatedAt: Date? = nil, graceResponse: Data? = nil, clientAuthenticated: Bool = false, resources: [String]? = nil,
                claims: ClaimsRequest? = nil, dpopJkt: String? = nil) {
        self.dpopJkt = dpopJkt
        self.resources = resources
        self.claims = claims
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

/// One vault-sealed value in storage.
public struct SealedValue: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// `sessions.upstream`: owner = session id, scope = auth service id.
        case sessionUpstream
        /// `signing_keys.private_key`: owner = kid.
        case signingKey
        /// `token_families.grace_response`: owner = family id.
        case refreshGrace
        /// `mfa_totp.secret`: owner = subject, scope = auth service namespace.
        case mfaTOTP

        /// Where this kind lives in both stores' schemas: the table, its id column, the column
        /// holding the binding's scope (nil: the scope is empty) and the sealed column.
        public var location: (table: String, id: String, scope: String?, column: String) {
            switch self {
            case .sessionUpstream: ("sessions", "id", "auth_service_id", "upstream")
            case .signingKey: ("signing_keys", "kid", nil, "private_key")
            case .refreshGrace: ("token_families", "id", nil, "grace_response")
            case .mfaTOTP: ("mfa_totp", "subject", "namespace", "secret")
            }
        }
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

extension TokenFamily {
    /// `resources` as stored: space-separated (URIs hold no spaces); nil stays NULL.
    public static func encode(_ resources: [String]?) -> String? { resources?.joined(separator: " ") }

    public static func decode(_ stored: String?) -> [String]? {
        stored.map { $0.split(separator: " ").map(String.init) }
    }
}
