import Foundation

/// A back end's request for a user's permission (docs/consent.md, "Permission requests"): the
/// back end names the user and the scopes, the user decides on the consent screen, and the back
/// end reads the outcome by the permission's id or its own `external_reference`.
public struct PermissionRequest: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        case pending, granted, denied, expired, revoked
    }

    /// The permission's public id.
    public var id: String
    /// Hash of the secret `request_uri` that opens its authorization (the link the user follows).
    public var uriHash: String
    /// The client that asked (`appKey` or `appKey.authServiceId` as it authenticated).
    public var clientId: String
    /// The user it is for: the user id at the identity source, or the broker's subject.
    public var username: String?
    public var subject: String?
    public var scope: String
    public var resources: [String]
    public var redirectURI: String
    public var state: String
    public var codeChallenge: String
    /// The back end's own reference, unique per client.
    public var externalReference: String?
    /// Where status changes are posted, as a signed JWT.
    public var notificationURI: String?
    public var status: Status
    /// The scopes granted (once `granted`).
    public var grantedScopes: [String]?
    public var createdAt: Date
    public var expiresAt: Date
    public var decidedAt: Date?

    public init(id: String, uriHash: String, clientId: String, username: String?, subject: String?, scope: String, resources: [String],
                redirectURI: String, state: String, codeChallenge: String, externalReference: String?, notificationURI: String?,
                status: Status = .pending, grantedScopes: [String]? = nil, createdAt: Date, expiresAt: Date, decidedAt: Date? = nil) {
        self.id = id
        self.uriHash = uriHash
        self.clientId = clientId
        self.username = username
        self.subject = subject
        self.scope = scope
        self.resources = resources
        self.redirectURI = redirectURI
        self.state = state
        self.codeChallenge = codeChallenge
        self.externalReference = externalReference
        self.notificationURI = notificationURI
        self.status = status
        self.grantedScopes = grantedScopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.decidedAt = decidedAt
    }
}

/// Permission requests: stored once, read by id, link or reference, and decided exactly once.
public protocol PermissionStore: Sendable {
    /// Stores a new request; returns false (storing nothing) when the client already has one with
    /// the same `externalReference`.
    func insertPermission(_ permission: PermissionRequest) async throws -> Bool
    func permission(id: String) async throws -> PermissionRequest?
    func permission(uriHash: String) async throws -> PermissionRequest?
    func permission(clientId: String, externalReference: String) async throws -> PermissionRequest?
    /// Replaces a request whose status is still `from` with `permission`; returns false (changing
    /// nothing) when its status is no longer `from` — so exactly one decision wins.
    func settlePermission(_ permission: PermissionRequest, from: PermissionRequest.Status) async throws -> Bool
    /// The granted requests of `subject` at the clients of consent key `clientKey` (and, for an
    /// instance, its own id), to mark revoked when the consent goes.
    func grantedPermissions(subject: String, clientIds: [String]) async throws -> [PermissionRequest]
}
