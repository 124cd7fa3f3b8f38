import Foundation
import Logging

/// A configured connection to one identity source. Concrete connectors adopt one or more
/// capability protocols below; the engine asks for the capability it needs.
public protocol Connector: Sendable {}

/// Username and password, as typed on the login page or sent to the token endpoint.
public struct PasswordCredentials: Sendable {
    public var username: String
    public var password: String
    public var scopes: [String]
    /// A one-time code the client sent with the password (API mode, docs/mfa.md): connectors
    /// that run their own second factor (an AuthLink) receive it in the first request.
    public var otp: String?

    public init(username: String, password: String, scopes: [String] = [], otp: String? = nil) {
        self.username = username
        self.password = password
        self.scopes = scopes
        self.otp = otp
    }
}

/// A question the identity source asks before it accepts the user (an AuthLink challenge,
/// docs/mfa.md): a code sent by SMS, a token's reading.
public struct LoginChallenge: Sendable, Equatable {
    /// What to show the person.
    public var message: String
    /// The source's state, handed back with the answer (at most 4 KiB; kept server-side).
    public var state: String
    /// `otp` (a code) or `text`.
    public var input: String

    public static let maxStateBytes = 4096

    public init(message: String, state: String, input: String) {
        self.message = message
        self.state = state
        self.input = input
    }
}

/// Why an identity source refused a sign-in. `message` is shown to the person signing in
/// and must not reveal whether the username exists.
public struct LoginRejection: Sendable, Equatable {
    public enum Reason: String, Sendable {
        case invalidCredentials, accountDisabled, accountLocked, passwordExpired, mustChangePassword, other
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, message: String? = nil) {
        self.reason = reason
        self.message = message ?? Self.defaultMessage(reason)
    }

    static func defaultMessage(_ reason: Reason) -> String {
        switch reason {
        case .invalidCredentials: "The username or password is incorrect."
        case .accountDisabled: "This account is disabled. Contact your administrator."
        case .accountLocked: "This account is locked. Try again later or contact your administrator."
        case .passwordExpired: "The password has expired. Change it, then sign in again."
        case .mustChangePassword: "The password must be changed before signing in."
        case .other: "Sign-in was refused."
        }
    }
}

/// The expected outcomes of a sign-in. Outages are thrown as ``ConnectorFailure``.
public enum LoginResult: Sendable {
    case authenticated(ConnectorIdentity)
    case rejected(LoginRejection)
    /// The source asks a question first (only from ``ChallengingConnector``s).
    case challenge(LoginChallenge)
}

/// A password connector whose source may answer a login with a ``LoginChallenge`` and takes the
/// person's answer in further rounds (docs/mfa.md, "AuthLink challenges").
public protocol ChallengingConnector: PasswordConnector {
    /// Sends the answer to `challenge` for `username`; the result reads like a login's.
    func answer(_ challenge: LoginChallenge, response: String, username: String) async throws -> LoginResult
}

/// The outcome of a password sign-in.
public typealias PasswordLoginResult = LoginResult

/// A connector that checks a username and password itself (static, custom, ldap, AD, oauth2 ROPC, saml-wrap).
public protocol PasswordConnector: Connector {
    func login(_ credentials: PasswordCredentials) async throws -> PasswordLoginResult
    /// The account a typed username names, for counting failed attempts: spellings the source
    /// treats as one account must give one name (AD: `CORP\alice`, `alice@corp.example.org`,
    /// `alice`). Case and surrounding spaces are folded by the caller.
    func accountName(for username: String) -> String
}

extension PasswordConnector {
    public func accountName(for username: String) -> String { username }
}

/// The outcome of refreshing an upstream token (docs/protocol.md, "Sessions and upstream tokens").
public enum RefreshOutcome: Sendable {
    /// New upstream token; `attributes` replaces the stored ones when present.
    case refreshed(UpstreamToken, attributes: [String: JSONValue]?)
    /// The source refused for good (revoked grant, account disabled): the session ends.
    case ended(reason: String)
}

/// A connector that can renew the upstream token or re-check the account when its TTL runs out.
/// A transient problem is thrown as ``ConnectorFailure`` with kind `.unavailable`.
public protocol RefreshingConnector: Connector {
    func refresh(userId: String, upstream: UpstreamToken) async throws -> RefreshOutcome
}

/// A connector that takes a token its identity source issued to an app directly (token exchange,
/// RFC 8693; docs/token-exchange.md): the user it names, as a sign-in would.
public protocol TokenExchangingConnector: Connector {
    /// The user `token` names, with the upstream token to keep (an access token; nothing for an
    /// ID token); nil when the source does not accept the token. Outages are thrown
    /// (``ConnectorFailure``).
    /// - Parameter audiences: the `aud` an ID token may name; empty: the connector's own client id.
    func identity(exchanging token: String, isIDToken: Bool, audiences: [String]) async throws -> ConnectorIdentity?
}

/// The identity source failed in a way that is not the user's fault.
public struct ConnectorFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// Down, timing out, refusing connections → `temporarily_unavailable` (503).
        case unavailable
        /// Answered, but nonsense → `server_error` (502).
        case invalidResponse
    }

    public var kind: Kind
    /// Safe to show to the client.
    public var message: String
    /// For logs only.
    public var debug: String?

    public init(_ kind: Kind, _ message: String, debug: String? = nil) {
        self.kind = kind
        self.message = message
        self.debug = debug
    }

    public var description: String { "\(kind): \(message)" + (debug.map { " (\($0))" } ?? "") }

    /// The OAuth error the front door answers with.
    public var oauthError: OAuthError {
        switch kind {
        case .unavailable: .unavailable(message, debug: debug)
        case .invalidResponse: .upstreamNonsense(message, debug: debug)
        }
    }
}
