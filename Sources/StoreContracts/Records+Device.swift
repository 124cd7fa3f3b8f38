import Foundation

/// A device authorization (RFC 8628, docs/device-grant.md): a TV, kiosk or command line asked to
/// sign a user in; the user types its user code on the broker's page in another browser, signs
/// in and allows it; the device polls the token endpoint with its device code until then.
/// Stored under the device code's hash and found by the user code's hash; neither code is stored.
public struct DeviceAuthorization: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Waiting for the user.
        case pending
        /// The user signed in and allowed the device: its next poll gets tokens.
        case approved
        /// The user refused (or the sign-in was refused): the poll answers `access_denied`.
        case denied
        /// A poll got its tokens: the device code is spent.
        case redeemed
    }

    public var deviceCodeHash: String
    public var userCodeHash: String
    public var clientId: String
    /// The client proved its secret when it asked: its polls must too.
    public var clientAuthenticated: Bool
    public var scope: String
    /// RFC 8707 targets the device asked for (nil: none).
    public var resources: [String]?
    public var state: State
    /// On approval: the session the user signed in with, and its subject.
    public var sessionId: String?
    public var subject: String?
    /// Seconds the device must wait between polls; grows by 5 at each `slow_down`.
    public var interval: Int
    /// The last poll, for `slow_down`.
    public var polledAt: Date?
    public var createdAt: Date
    public var expiresAt: Date

    public init(deviceCodeHash: String, userCodeHash: String, clientId: String, clientAuthenticated: Bool = false, scope: String,
                resources: [String]? = nil,
                state: State = .pending, sessionId: String? = nil, subject: String? = nil, interval: Int, polledAt: Date? = nil,
                createdAt: Date, expiresAt: Date) {
        self.deviceCodeHash = deviceCodeHash
        self.userCodeHash = userCodeHash
        self.clientId = clientId
        self.clientAuthenticated = clientAuthenticated
        self.scope = scope
        self.resources = resources
        self.state = state
        self.sessionId = sessionId
        self.subject = subject
        self.interval = interval
        self.polledAt = polledAt
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// How the user settles a device authorization.
public enum DeviceSettlement: Sendable, Equatable {
    /// Signed in and allowed: the device gets tokens for this session.
    case approved(sessionId: String, subject: String)
    case denied

    /// What the stored row becomes: state, session id, subject.
    public var columns: (state: DeviceAuthorization.State, sessionId: String?, subject: String?) {
        switch self {
        case .approved(let sessionId, let subject): (.approved, sessionId, subject)
        case .denied: (.denied, nil, nil)
        }
    }
}

/// Device authorizations, shared by every broker instance (the device may poll one while the
/// user signs in on another).
public protocol DeviceAuthorizationStore: Sendable {
    /// Stores a new authorization; false (and nothing stored) when its user code's hash is
    /// already taken, so the caller draws another code.
    func insertDeviceAuthorization(_ authorization: DeviceAuthorization) async throws -> Bool
    func deviceAuthorization(deviceCodeHash: String) async throws -> DeviceAuthorization?
    func deviceAuthorization(userCodeHash: String) async throws -> DeviceAuthorization?
    /// Moves a pending, unexpired (at `now`) authorization to its settlement in one statement;
    /// returns whether it did, so of two browsers settling one code exactly one wins.
    func settleDeviceAuthorization(deviceCodeHash: String, _ settlement: DeviceSettlement, at now: Date) async throws -> Bool
    /// Moves an approved, unexpired authorization to `redeemed`; returns whether it did, so of
    /// two polls of one device code exactly one gets tokens.
    func redeemDeviceAuthorization(deviceCodeHash: String, at now: Date) async throws -> Bool
    /// Records a poll at `now` and the interval the device must keep from now on.
    func noteDevicePoll(deviceCodeHash: String, at now: Date, interval: Int) async throws
}
