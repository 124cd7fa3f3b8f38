import Foundation
import IdentityCore

/// A dynamically registered mobile app instance (docs/protocol.md, "Mobile app instances"): one
/// installed copy of an app with its own credentials. Its client secret and registration access
/// token are kept only as hashes.
public struct RegisteredClient: Sendable, Codable, Equatable {
    /// `dyn~<software_id>~<uuid>`.
    public var clientId: String
    /// The environment that registered it.
    public var appKey: String
    public var softwareId: String
    /// iphone, ipad, android, android_tablet or windows_phone.
    public var deviceType: String
    public var redirectURIs: [String]
    public var scope: String
    public var grantTypes: [String]
    /// `Secrets.hash` of the client secret.
    public var secretHash: String
    /// `Secrets.hash` of the registration access token (RFC 7592).
    public var registrationTokenHash: String
    public var createdAt: Date
    /// The user the first sign-in bound the instance to (nil until then).
    public var boundSubject: String?
    /// The sign-in session of the bound user; `client_credentials` works while it lives.
    public var sessionId: String?
    public var boundAt: Date?
    /// RFC 7591 metadata `web_origins`, as registered: exact origins and `+` (the origins of the
    /// http(s) redirect URIs); nil for instances registered without (and before the field existed).
    public var webOrigins: [String]?
    /// RFC 9449 §5.2 metadata `dpop_bound_access_tokens`: the instance always uses DPoP, so a token
    /// request of it without a proof is refused. Nil (false) for instances registered without.
    public var dpopBoundAccessTokens: Bool?

    public init(clientId: String, appKey: String, softwareId: String, deviceType: String, redirectURIs: [String],
                scope: String, grantTypes: [String], secretHash: String, registrationTokenHash: String,
                createdAt: Date, boundSubject: String? = nil, sessionId: String? = nil, boundAt: Date? = nil,
                webOrigins: [String]? = nil) {
        self.clientId = clientId
        self.appKey = appKey
        self.softwareId = softwareId
        self.deviceType = deviceType
        self.redirectURIs = redirectURIs
        self.scope = scope
        self.grantTypes = grantTypes
        self.secretHash = secretHash
        self.registrationTokenHash = registrationTokenHash
        self.createdAt = createdAt
        self.boundSubject = boundSubject
        self.sessionId = sessionId
        self.boundAt = boundAt
        self.webOrigins = webOrigins
    }

    /// The exact browser origins this instance lists for CORS (`+` expanded against its current
    /// redirect URIs): what the stores index for ``RegisteredClientStore/registeredClientListsWebOrigin(_:)``.
    public var allowedWebOrigins: [String] {
        WebOrigins.expand(webOrigins ?? [], redirectURIs: redirectURIs)
    }
}

extension RegisteredClient {
    /// This stored instance with what an RFC 7592 update may change taken from `update` (device
    /// type, redirect URIs, web origins, the rotated registration access token hash); the binding to a user
    /// and session stays as stored, so an update racing the first sign-in cannot undo it.
    public func applyingMetadata(of update: RegisteredClient) -> RegisteredClient {
        var merged = self
        merged.deviceType = update.deviceType
        merged.redirectURIs = update.redirectURIs
        merged.webOrigins = update.webOrigins
        merged.dpopBoundAccessTokens = update.dpopBoundAccessTokens
        merged.registrationTokenHash = update.registrationTokenHash
        return merged
    }
}
