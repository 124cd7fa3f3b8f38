import Foundation

/// Where a redirect connector's identity source sends the browser back.
public enum CallbackKind: String, Sendable {
    /// `GET <issuer>/oauth/callback` with `state` (OAuth 2.0 / OIDC).
    case oauthCallback
    /// `POST <issuer>/saml/acs` with `RelayState` (SAML HTTP-POST binding).
    case samlAssertionConsumer
}

/// What the broker asks a redirect connector to start.
public struct RedirectLoginRequest: Sendable {
    /// The broker's correlation value. It must come back unchanged with the callback
    /// (OAuth `state`, SAML `RelayState`); it is random with 256 bits.
    public var relayState: String
    public var loginHint: String?
    /// `prompt=login`: ask the identity source to authenticate again (OIDC `prompt=login`, SAML `ForceAuthn`).
    public var forceLogin: Bool
    public var scopes: [String]

    public init(relayState: String, loginHint: String? = nil, forceLogin: Bool = false, scopes: [String] = []) {
        self.relayState = relayState
        self.loginHint = loginHint
        self.forceLogin = forceLogin
        self.scopes = scopes
    }
}

/// How the browser is sent to the identity source.
public enum RedirectAction: Sendable, Equatable {
    /// `302 Location: url` (OAuth, SAML HTTP-Redirect).
    case redirect(String)
    /// An auto-submitting form that POSTs `fields` to `url` (SAML HTTP-POST).
    case autoPost(url: String, fields: [FormField])

    public struct FormField: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }
}

/// The start of an upstream sign-in: where to send the browser, and what to remember until it returns.
public struct RedirectLoginStart: Sendable {
    public var action: RedirectAction
    /// Connector state for the callback (PKCE verifier, nonce, SAML request id). The broker seals
    /// it with the vault and hands it back only to the callback that carries the same relay state.
    public var savedState: Data

    public init(action: RedirectAction, savedState: Data) {
        self.action = action
        self.savedState = savedState
    }
}

/// What came back from the identity source.
public struct RedirectCallback: Sendable {
    /// Query parameters (OAuth callback) or form fields (SAML ACS), exactly as received.
    public var parameters: [String: String]
    /// What ``RedirectLoginStart/savedState`` held.
    public var savedState: Data

    public init(parameters: [String: String], savedState: Data) {
        self.parameters = parameters
        self.savedState = savedState
    }
}

/// A connector that signs the user in at the identity source through the browser
/// (saml-redirect, saml-post, oauth2, openid-connect).
///
/// Expected refusals (wrong password upstream, `access_denied`, an invalid or replayed
/// response) are `.rejected` values; an identity source that is down throws ``ConnectorFailure``.
public protocol RedirectConnector: Connector {
    var callbackKind: CallbackKind { get }
    func beginLogin(_ request: RedirectLoginRequest) async throws -> RedirectLoginStart
    func finishLogin(_ callback: RedirectCallback) async throws -> LoginResult
}

/// A connector that publishes metadata for the identity source (SAML SP metadata).
public protocol MetadataPublishingConnector: Connector {
    /// The document and its media type.
    func metadata() -> (contentType: String, body: String)
}

/// A connector whose identity source should also be signed out of (SAML `logoutUri`).
public protocol LogoutRedirectingConnector: Connector {
    /// Where to send the browser after the broker's own logout, if anywhere.
    func logoutRedirect(userId: String, postLogoutRedirect: String?) -> String?
}
