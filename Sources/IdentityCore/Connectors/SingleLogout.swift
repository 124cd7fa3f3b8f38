import Foundation

/// A message that arrived at the broker's single-logout endpoint (`GET|POST /saml/slo`,
/// docs/connectors/saml.md, "Single logout"): a logout request from the identity source, or its
/// answer to one the broker sent.
public struct LogoutMessage: Sendable {
    /// How it came: in the query (SAML HTTP-Redirect) or in a form (SAML HTTP-POST).
    public enum Binding: Sendable, Equatable { case redirect, post }

    public var binding: Binding
    /// The decoded parameters (`SAMLRequest` or `SAMLResponse`, `RelayState`, `SigAlg`, `Signature`).
    public var parameters: [String: String]
    /// The query string exactly as received: an HTTP-Redirect signature covers the bytes as sent,
    /// not a re-encoding of the decoded values.
    public var rawQuery: String?

    public init(binding: Binding, parameters: [String: String], rawQuery: String? = nil) {
        self.binding = binding
        self.parameters = parameters
        self.rawQuery = rawQuery
    }

    /// A logout request (the identity source ends a sign-in); otherwise an answer to the broker's.
    public var isRequest: Bool { parameters["SAMLRequest"] != nil }
}

/// What the broker asks of a connector when a user signs out of a session it started.
public struct UpstreamLogoutRequest: Sendable {
    /// The user's id at the identity source (the SAML NameID).
    public var userId: String
    /// The session's upstream token, when it still has one (SAML: NameID details and SessionIndex).
    public var upstream: UpstreamToken?
    /// The broker's correlation value; it must come back with the identity source's answer.
    public var relayState: String

    public init(userId: String, upstream: UpstreamToken?, relayState: String) {
        self.userId = userId
        self.upstream = upstream
        self.relayState = relayState
    }
}

/// Where to send the browser to sign out at the identity source, and what to remember until
/// its answer returns (the request id it must answer).
public struct UpstreamLogoutStart: Sendable {
    public var action: RedirectAction
    public var savedState: Data

    public init(action: RedirectAction, savedState: Data) {
        self.action = action
        self.savedState = savedState
    }
}

/// The identity source's answer to the broker's logout request.
public enum UpstreamLogoutResult: Sendable, Equatable {
    /// It ended its session.
    case completed
    /// It answered, authentically, but did not end its session everywhere (a partial logout or
    /// an error status); the message names its status codes.
    case incomplete(String)
    /// The answer failed a check (signature, InResponseTo, Destination, not a logout response).
    case refused(String)
}

/// A logout the identity source asked for, verified by the connector.
public struct IdentitySourceLogout: Sendable {
    /// The user whose sign-ins end (the SAML NameID).
    public var userId: String
    /// The identity source's own ids of the sign-ins to end (SAML `SessionIndex`); empty means
    /// every sign-in of the user.
    public var upstreamSessionIds: [String]
    /// The request's id, refused when presented again until it expires (replay).
    public var oneTimeUse: ConnectorIdentity.OneTimeUse
    /// What the connector needs to answer it (request id, RelayState), handed back to
    /// ``SingleLogoutConnector/logoutReply(_:ended:)``.
    public var replyState: Data

    public init(userId: String, upstreamSessionIds: [String], oneTimeUse: ConnectorIdentity.OneTimeUse, replyState: Data) {
        self.userId = userId
        self.upstreamSessionIds = upstreamSessionIds
        self.oneTimeUse = oneTimeUse
        self.replyState = replyState
    }
}

/// A connector's verdict on a logout request that arrived at the broker.
public enum IdentitySourceLogoutVerdict: Sendable {
    /// Not for this connector (another identity source, or it has no single logout).
    case notForThisConnector
    /// For this connector, but it fails a check: shown to the browser, never answered.
    case refused(String)
    case accepted(IdentitySourceLogout)
}

/// A connector whose identity source takes part in single logout (SAML SLO): the broker's
/// logout also ends the identity source's session, and the identity source can end the broker's
/// sessions of a user (docs/connectors/saml.md, "Single logout").
///
/// Verification (signatures, Destination, times) is the connector's; replay bookkeeping and
/// ending sessions are the broker's.
public protocol SingleLogoutConnector: Connector {
    /// The logout request to send the browser with, or nil when the identity source has no
    /// single-logout endpoint.
    func beginLogout(_ request: UpstreamLogoutRequest) async throws -> UpstreamLogoutStart?
    /// Checks the identity source's answer to the request `savedState` remembers.
    func finishLogout(_ message: LogoutMessage, savedState: Data) async throws -> UpstreamLogoutResult
    /// Checks a logout request from the identity source.
    func verifyLogoutRequest(_ message: LogoutMessage) async throws -> IdentitySourceLogoutVerdict
    /// The answer to an accepted request: `ended` says whether the broker ended the sessions.
    func logoutReply(_ logout: IdentitySourceLogout, ended: Bool) async throws -> RedirectAction
}
