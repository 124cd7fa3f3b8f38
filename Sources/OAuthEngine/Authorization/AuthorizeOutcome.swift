import Foundation
import IdentityCore
import PageLanguages
import StoreContracts

/// What a browser request brings: its cookies, address and User-Agent. `/oauth/auth` and every
/// browser sign-in flow take one.
public struct BrowserContext: Sendable {
    /// The SSO cookie.
    public var ssoToken: String?
    /// An app-to-web `css` value an app handed the browser (docs/protocol.md, "App-to-web SSO").
    public var webSSOValue: String?
    /// The browser binding cookie, when it brought a well-formed one.
    public var binding: String?
    /// The client address (behind trusted proxies, the first untrusted hop).
    public var clientAddress: String?
    /// The browser's User-Agent, kept in a browser sign-in's session (the account page).
    public var userAgent: String?

    public init(ssoToken: String? = nil, webSSOValue: String? = nil, binding: String? = nil, clientAddress: String? = nil,
                userAgent: String? = nil) {
        self.ssoToken = ssoToken
        self.webSSOValue = webSSOValue
        self.binding = binding
        self.clientAddress = clientAddress
        self.userAgent = userAgent
    }
}

/// The hosted login page of one pending authorization.
public struct LoginFormModel: Sendable, Equatable {
    public var heading: PageText
    /// The temp login URI the form posts to.
    public var action: String
    /// Bound to the pending authorization and the browser (docs/security.md, rules 4 and 10).
    public var csrfToken: String
    public var username: String?
    public var error: PageText?
    /// How the page looks: the auth service's stylesheet and branding.
    public var look: PageLook
    /// "Sign in with a QR code", when the auth service has `qrLogin`.
    public var qrStart: String?
}

/// `prompt=select_account`: the browser's accounts, each a link that signs in as it.
public struct AccountChooserModel: Sendable, Equatable {
    public struct Account: Sendable, Equatable {
        public var label: String
        public var detail: String
        public var link: String
    }

    public var heading: PageText
    public var accounts: [Account]
    /// The same request with `prompt=login`.
    public var anotherAccount: String
    public var look: PageLook
}

/// What `/oauth/auth` answers in a browser (docs/protocol.md, "GET /oauth/auth"); the controller
/// only renders it.
public enum AuthorizeOutcome: Sendable, Equatable {
    /// An error page; never a redirect (the client or redirect URI cannot be trusted, or the
    /// request could not be taken in). `back`: the named client's web origin, which the operator
    /// registered, as the page's way back to the app (nil when no configured client was named).
    case errorPage(OAuthError, back: String? = nil)
    /// Back to the client with a code or an error; `sso` is a new SSO cookie to set.
    case redirect(ClientAnswer, sso: SSOCookie? = nil)
    /// On to the second-step page of this sign-in (docs/mfa.md).
    case secondStep(String)
    /// On to the consent page of this sign-in (docs/consent.md).
    case consent(String)
    /// To the identity source (SAML, OAuth 2.0, OIDC).
    case upstream(RedirectAction)
    /// The hosted login page.
    case loginForm(LoginFormModel)
    /// A customer's own login page (`customizedLogin: page`), which posts to the temp login URI.
    case customPage(String)
    case accountChooser(AccountChooserModel)
}

/// An outcome with what the browser's cookies must become.
public struct AuthorizeResult: Sendable, Equatable {
    public var outcome: AuthorizeOutcome
    /// The browser binding cookie to set (a sign-in was started in this browser).
    public var binding: String?
    /// The `css` value was presented and is spent: tell the browser to drop it.
    public var clearWebSSO: Bool
}

extension ResolvedClient {
    /// The app's name as people know it: its environment's `name`.
    public var appName: String? { environment.name }

    /// Where a person who backs out of a page (Cancel on the sign-out question) goes: the origin
    /// of the client's first web redirect URI, which the operator registered; nil for an app that
    /// only has custom-scheme redirect URIs.
    public var home: String? {
        for uri in redirectURIs {
            guard let url = URL(string: uri), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  let host = url.host else { continue }
            return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")/"
        }
        return nil
    }

    /// How the hosted pages look for this client: its auth service's `customizedLogin: css`
    /// stylesheet, and its `branding` over its environment's.
    public var look: PageLook {
        var stylesheet: URL?
        if case .css(let url) = service.customizedLogin { stylesheet = url }
        let branding = service.branding.map { $0.over(environment.branding) } ?? environment.branding
        return PageLook(stylesheet: stylesheet, branding: branding, defaultLanguage: service.locale)
    }
}
