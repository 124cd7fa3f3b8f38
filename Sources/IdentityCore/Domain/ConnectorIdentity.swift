import Foundation

/// The token a connector got from the identity source, kept sealed in the session (SPEC §4)
/// and forwarded to data links as `client_token` (SPEC §5).
public struct UpstreamToken: Sendable, Codable, Equatable {
    /// What `client_token` carries: the AuthLink token, the upstream access token, the SAML assertion.
    public var token: String
    /// Upstream refresh token, when the source issued one.
    public var refreshToken: String?
    /// When the upstream token stops being usable; `nil` means it never needs refreshing.
    public var expiresAt: Date?
    /// Connector-specific extras (for example an upstream id_token). Sealed together with the token.
    public var extra: [String: String]

    public init(token: String, refreshToken: String? = nil, expiresAt: Date? = nil, extra: [String: String] = [:]) {
        self.token = token
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.extra = extra
    }
}

/// Who the identity source says the user is.
public struct ConnectorIdentity: Sendable, Equatable {
    /// The user's id at the identity source (username, NameID, userIdAttribute). `/oauth/validate` returns it as `id`.
    public var userId: String
    /// Everything else the source told us (`email`, `name`, `groups`, AuthLink extras, SAML attributes).
    public var attributes: [String: JSONValue]
    /// The upstream token to keep and forward, if the source issues one.
    public var upstream: UpstreamToken?

    public init(userId: String, attributes: [String: JSONValue] = [:], upstream: UpstreamToken? = nil) {
        self.userId = userId
        self.attributes = attributes
        self.upstream = upstream
    }

    public var email: String? { attributes["email"]?.stringValue }
    public var name: String? { attributes["name"]?.stringValue }
    public var groups: [String] {
        guard case .array(let values) = attributes["groups"] else { return [] }
        return values.compactMap(\.stringValue)
    }
}
