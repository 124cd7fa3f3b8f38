import Foundation

/// The token a connector got from the identity source, kept sealed in the session
/// (docs/protocol.md, "Sessions and upstream tokens") and forwarded to data links as `client_token`
/// (docs/protocol.md, "Data-link gateway").
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
    /// A value the source says may be used once (a SAML assertion id): the broker refuses a
    /// second sign-in with it until it expires, across instances sharing a database.
    public var oneTimeUse: OneTimeUse?
    /// When the identity source ends this sign-in itself (SAML `SessionNotOnOrAfter`): the
    /// broker's session ends then, whatever else would keep it
    /// (docs/protocol.md, "Sessions and upstream tokens"; docs/security.md, rule 11).
    public var sessionEndsAt: Date?
    /// The identity source's own id of this sign-in (SAML `SessionIndex`), so that a logout it
    /// starts can end exactly this session (docs/connectors/saml.md, "Single logout").
    public var upstreamSessionId: String?

    public struct OneTimeUse: Sendable, Equatable {
        public var id: String
        public var expiresAt: Date
        public init(id: String, expiresAt: Date) {
            self.id = id
            self.expiresAt = expiresAt
        }
    }

    public init(userId: String, attributes: [String: JSONValue] = [:], upstream: UpstreamToken? = nil, oneTimeUse: OneTimeUse? = nil,
                sessionEndsAt: Date? = nil, upstreamSessionId: String? = nil) {
        self.userId = userId
        self.attributes = attributes
        self.upstream = upstream
        self.oneTimeUse = oneTimeUse
        self.sessionEndsAt = sessionEndsAt
        self.upstreamSessionId = upstreamSessionId
    }

    public var email: String? { attributes["email"]?.stringValue }
    public var name: String? { attributes["name"]?.stringValue }
    public var groups: [String] {
        guard case .array(let values) = attributes["groups"] else { return [] }
        return values.compactMap(\.stringValue)
    }
}

extension UpstreamToken {
    /// The JSON the vault seals, written without `JSONEncoder` (every sign-in seals one):
    /// what `JSONEncoder.sortedCompact` writes, dates as seconds since the reference date
    /// (`UpstreamSerializationTests`), read back by `decode`.
    public var serialized: Data {
        var object: [String: JSONValue] = ["token": .string(token), "extra": .object(extra.mapValues { .string($0) })]
        object["refreshToken"] = refreshToken.map { .string($0) }
        object["expiresAt"] = expiresAt.map { .double($0.timeIntervalSinceReferenceDate) }
        return Data(JSONValue.serialize(object: object))
    }

    /// Reads the JSON `JSONEncoder` wrote for this type (dates as seconds since the reference
    /// date) with the byte-level parser; falls back to `JSONDecoder` for anything unexpected.
    /// Every validate of an upstream-backed session opens one of these.
    public static func decode(_ data: Data) throws -> UpstreamToken {
        if case .object(let object)? = JSONValue(parsing: data), case .string(let token)? = object["token"] {
            var fast = UpstreamToken(token: token)
            var understood = true
            switch object["refreshToken"] {
            case .string(let refresh)?: fast.refreshToken = refresh
            case nil, .null?: break
            default: understood = false
            }
            switch object["expiresAt"] {
            case .int(let seconds)?: fast.expiresAt = Date(timeIntervalSinceReferenceDate: Double(seconds))
            case .double(let seconds)?: fast.expiresAt = Date(timeIntervalSinceReferenceDate: seconds)
            case nil, .null?: break
            default: understood = false
            }
            switch object["extra"] {
            case .object(let extra)?:
                for (key, value) in extra {
                    guard case .string(let text) = value else { understood = false; break }
                    fast.extra[key] = text
                }
            case nil: break
            default: understood = false
            }
            if understood { return fast }
        }
        return try JSONDecoder().decode(UpstreamToken.self, from: data)
    }
}
