import Foundation
import PageLanguages

/// The consent screen of one sign-in (docs/consent.md): which app asks, for what, as whom.
/// The controller only renders it.
public struct ConsentPageModel: Sendable, Equatable {
    /// One scope asked for, in words.
    public struct Scope: Sendable, Equatable {
        public var name: String
        public var description: PageText
        /// The user cannot withhold it (`openid`): shown without a checkbox.
        public var required: Bool
    }

    /// The app's name (the environment's `name`, else the auth service's, else the client id).
    public var appName: String
    /// The auth service the person signed in with.
    public var serviceName: String
    public var logo: URL?
    public var homepage: URL?
    public var policy: URL?
    public var termsOfService: URL?
    /// Who is signed in ("Signed in as …").
    public var account: String
    public var scopes: [Scope]
    /// The APIs (RFC 8707 resources) the tokens will be for.
    public var resources: [String]
    /// Where Allow and Deny post (`decision`, `csrf_token`, `grant_<scope>`).
    public var action: String
    /// Bound to the pending authorization and the browser.
    public var csrfToken: String
    public var look: PageLook
}

/// What a consent request comes to.
public enum ConsentOutcome: Sendable {
    case page(ConsentPageModel)
    /// Approved: back to the client with a code (and the SSO cookie).
    case finished(BrowserSignInResult)
    /// Denied: back to the client with `access_denied`.
    case redirect(ClientAnswer)
}

/// The built-in words for the standard scopes; an auth service's `consent.scopes` replace or add.
enum ScopeWords {
    static let standard: [String: PageText] = [
        "openid": PageText("Confirm who you are"),
        "profile": PageText("See your name and profile details"),
        "email": PageText("See your email address"),
        "address": PageText("See your postal address"),
        "phone": PageText("See your phone number"),
        "offline_access": PageText("Stay signed in and act for you while you are away"),
        "device_sso": PageText("Share this sign-in with the organization's other apps on this device"),
    ]

    /// The operator's words (as written), else the built-in ones, else the scope's name.
    static func describe(_ scope: String, overrides: [String: String]) -> PageText {
        overrides[scope].map(PageText.init(verbatim:)) ?? standard[scope] ?? PageText("Use \u{201C}\(scope)\u{201D}")
    }
}
