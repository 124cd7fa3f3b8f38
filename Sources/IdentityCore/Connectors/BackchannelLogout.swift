import Foundation

/// A sign-out the identity source told the broker of server to server (OpenID Connect
/// Back-Channel Logout 1.0: a `logout_token` POSTed to the auth service's back-channel logout
/// URL), verified by the connector. Names the user, the identity source's session, or both.
public struct UpstreamBackchannelLogout: Sendable, Equatable {
    /// The user id the broker knows the user by, when the token names the user in a way the
    /// connector can map (its `sub` is the user id); nil when only `sid` can be matched.
    public var userId: String?
    /// The identity source's session, in the form ``ConnectorIdentity/upstreamSessionId`` takes for
    /// the sign-ins it started; nil when the token has no `sid` (every sign-in of the user ends).
    public var upstreamSessionId: String?
    /// The token's `jti`: refused when presented again until it expires (replay).
    public var oneTimeUse: ConnectorIdentity.OneTimeUse

    public init(userId: String?, upstreamSessionId: String?, oneTimeUse: ConnectorIdentity.OneTimeUse) {
        self.userId = userId
        self.upstreamSessionId = upstreamSessionId
        self.oneTimeUse = oneTimeUse
    }
}

/// A connector whose identity source can end its users' sessions at the broker by back-channel
/// logout (docs/connectors/oauth2-oidc.md, "Back-channel logout from the provider").
public protocol BackchannelLogoutConnector: Connector {
    /// Verifies a `logout_token` (signature with the identity source's keys, `iss`, `aud`,
    /// `iat`, `events`, no `nonce`, `sub` or `sid`). Throws a ``ConnectorFailure`` saying why a
    /// token is refused (`.invalidResponse`), or that the keys could not be read (`.unavailable`).
    func verifyLogoutToken(_ token: String) async throws -> UpstreamBackchannelLogout
}
