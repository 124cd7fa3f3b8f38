import Foundation
import IdentityCore

/// A sign-in at an identity source (docs/protocol.md, "Sessions and upstream tokens"): who, what
/// the source said, the sealed upstream token.
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
    /// The browser that signed in (its User-Agent, at most 512 bytes) and its address: set for
    /// browser sign-ins, shown on the user's account page; nil for app sign-ins.
    public var userAgent: String?
    public var clientAddress: String?
    /// When an app or browser last used the sign-in (SSO reuse, refresh); nil: not since it began.
    public var lastUsedAt: Date?
    /// What the sign-in proved, as RFC 8176 `amr` values (`pwd`, `otp`, `hwk`, `mfa`); empty for
    /// sessions stored before it was recorded. Tokens carry it; SSO reuse reads it (docs/mfa.md).
    public var amr: [String]
    /// `Secrets.hash` of the identity source's own id of this sign-in (SAML `SessionIndex`), so
    /// that a logout the identity source starts ends exactly the sessions it names
    /// (docs/connectors/saml.md, "Single logout"). Hashed: it is an identifier, not needed in clear.
    public var upstreamSessionKey: String?

    public init(id: String, subject: String, userId: String, appKey: String, authServiceId: String,
                attributes: [String: JSONValue], sealedUpstream: Data?, upstreamExpiresAt: Date?,
                authTime: Date, createdAt: Date, expiresAt: Date, maxExpiresAt: Date? = nil, revokedAt: Date? = nil,
                version: Int = 0, userAgent: String? = nil, clientAddress: String? = nil, lastUsedAt: Date? = nil,
                amr: [String] = [], upstreamSessionKey: String? = nil) {
        self.userAgent = userAgent
        self.clientAddress = clientAddress
        self.lastUsedAt = lastUsedAt
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
        self.amr = amr
        self.upstreamSessionKey = upstreamSessionKey
    }

    /// Whether a second factor was used (`amr` contains `mfa`): `acr` is
    /// `urn:idconnect:acr:mfa` then, and `mfa.mode: required` is satisfied.
    public var usedSecondFactor: Bool { amr.contains("mfa") }

    public func isActive(at now: Date) -> Bool { revokedAt == nil && now < expiresAt }

    /// The client of the auth service the user signed in at (`appKey.authServiceId`).
    public var authServiceClient: ClientID { ClientID(appKey: appKey, authServiceId: authServiceId) }

    /// The session as storing `family` with it leaves it (`TokenFamilyStore.insertFamily`): a
    /// refresh token moves `expiresAt` out to the token's expiry, never past `maxExpiresAt`, and
    /// notes the use (`lastUsedAt`). A family without a refresh token changes nothing. For a store
    /// that writes a new session and its first family at once (`SessionStore.startSession`).
    public func extended(for family: TokenFamily) -> LoginSession {
        guard let expiry = family.refreshExpiresAt else { return self }
        var extended = self
        extended.expiresAt = max(expiresAt, min(expiry, maxExpiresAt ?? expiry))
        extended.lastUsedAt = family.createdAt
        return extended
    }
}

extension LoginSession {
    /// The most of a User-Agent a session keeps.
    public static let maxUserAgentBytes = 512

    /// A User-Agent as a session keeps it: at most ``maxUserAgentBytes`` bytes, cut at a
    /// character boundary, control characters dropped; nil when nothing is left.
    public static func storedUserAgent(_ header: String?) -> String? {
        guard let header else { return nil }
        var kept = ""
        var bytes = 0
        for scalar in header.unicodeScalars where !(scalar.value < 0x20 || scalar.value == 0x7F) {
            let size = String(scalar).utf8.count
            guard bytes + size <= maxUserAgentBytes else { break }
            kept.unicodeScalars.append(scalar)
            bytes += size
        }
        let trimmed = kept.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `amr` as both backends store it: the values separated by spaces; nil when there are none.
    public static func amrColumn(_ amr: [String]) -> String? { amr.isEmpty ? nil : amr.joined(separator: " ") }

    /// Reads ``amrColumn(_:)``.
    public static func amr(column: String?) -> [String] { column.map { $0.split(separator: " ").map(String.init) } ?? [] }
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
