import Foundation
import IdentityCore

/// An authorization in progress: `GET /oauth/auth` or `POST /oauth/auth` started it, a sign-in
/// finishes it. Stored under the hash of its id (the id is in the temp login URI).
public struct PendingAuthorization: Sendable, Codable, Equatable {
    /// How the sign-in is expected to arrive.
    public enum Mode: String, Sendable, Codable {
        /// The hosted login page: the POST must carry the CSRF token bound to the browser.
        case browser
        /// The automated grant (`temp_login_uri`) or a customer's own login page.
        case api
        /// A redirect connector (SAML, OAuth2, OIDC) is signing the user in upstream.
        case upstream
    }

    public var clientId: String
    public var appKey: String
    public var authServiceId: String
    public var redirectURI: String
    public var scope: String
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var mode: Mode
    /// Hash of the browser binding cookie of the browser that started it
    /// (docs/security.md, rules 4 and 10): the login form, the upstream callback and the SAML ACS
    /// finish it only in that browser, and only that browser gets the SSO cookie. Nil for the
    /// API-mode temp login URI.
    public var browserHash: String?
    public var prompt: String?
    public var loginHint: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// Connector state for redirect sign-ins (upstream state, PKCE verifier, request id), sealed.
    public var upstreamState: Data?
    public var failedAttempts: Int
    /// The message the login page shows after a failed attempt.
    public var lastError: String?
    /// RFC 8707 targets the authorization named (nil: none).
    public var resources: [String]?
    /// OIDC `claims` asked for (nil: none).
    public var claims: ClaimsRequest?
    /// OIDC `max_age`: the sign-in may be at most this many seconds old.
    public var maxAge: Int?
    /// `access_type=online` (Blitz): no refresh token for this authorization.
    public var online: Bool?
    /// `response_mode`: how the code or error goes back to the client (nil: `query`).
    public var responseMode: ResponseMode?
    /// `acr_values` or an essential `acr` claim asked for a second factor (nil: not asked).
    public var stepUp: StepUp?
    /// `dpop_jkt` (RFC 9449 §10): the code goes only to a token request proving this key.
    public var dpopJkt: String?
    /// Set once the first factor passed and a second step (an AuthLink challenge, a second
    /// factor, an enrolment) is outstanding (docs/mfa.md).
    public var secondStep: SecondStep?
    /// Set once the person is signed in and the app needs their consent (docs/consent.md).
    public var consent: ConsentStep?
    /// The back end's permission request this sign-in answers (docs/consent.md).
    public var permissionId: String?
    /// `ui_locales` (OIDC Core 3.1.2.1): the languages the app asked the pages to be in.
    public var uiLocales: String?

    public init(clientId: String, appKey: String, authServiceId: String, redirectURI: String, scope: String,
                state: String?, nonce: String?, codeChallenge: String?, mode: Mode, browserHash: String? = nil,
                prompt: String? = nil, loginHint: String? = nil, createdAt: Date, expiresAt: Date,
                upstreamState: Data? = nil, failedAttempts: Int = 0, lastError: String? = nil) {
        self.clientId = clientId
        self.appKey = appKey
        self.authServiceId = authServiceId
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.mode = mode
        self.browserHash = browserHash
        self.prompt = prompt
        self.loginHint = loginHint
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.upstreamState = upstreamState
        self.failedAttempts = failedAttempts
        self.lastError = lastError
    }
}

/// An authorization code, stored under its hash. Single use
/// (docs/protocol.md, "POST /oauth/token").
public struct AuthorizationCode: Sendable, Codable, Equatable {
    public var hash: String
    public var clientId: String
    public var redirectURI: String
    public var scope: String
    public var nonce: String?
    public var codeChallenge: String?
    public var sessionId: String
    public var createdAt: Date
    public var expiresAt: Date
    /// RFC 8707 targets the authorization named (nil: none): the token request may narrow them.
    public var resources: [String]?
    /// OIDC `claims` asked for (nil: none).
    public var claims: ClaimsRequest?
    /// `access_type=online`: the tokens come without a refresh token.
    public var online: Bool?
    /// `dpop_jkt` of the authorization (RFC 9449 §10): redeemed only with a proof of this key.
    public var dpopJkt: String?

    public init(hash: String, clientId: String, redirectURI: String, scope: String, nonce: String?,
                codeChallenge: String?, sessionId: String, createdAt: Date, expiresAt: Date, resources: [String]? = nil,
                claims: ClaimsRequest? = nil, online: Bool? = nil, dpopJkt: String? = nil) {
        self.dpopJkt = dpopJkt
        self.resources = resources
        self.claims = claims
        self.online = online
        self.hash = hash
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.scope = scope
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.sessionId = sessionId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What happened when a code was presented.
public enum CodeRedemption: Sendable, Equatable {
    /// First use: the caller may issue tokens.
    case redeemed(AuthorizationCode)
    /// Second use: refuse, and revoke the family the first use created (RFC 6749 §10.5).
    case alreadyUsed(AuthorizationCode, familyId: String?)
    case notFound
}
