import Foundation
import IdentityConfig

/// How a hosted page looks and reads (docs/configuration.md, "Branding"; docs/languages.md): the
/// operator's stylesheet (`customizedLogin: css`), the branding of the client's auth service and
/// environment, and what decides the page's language. Every page model carries one; the app
/// renders it into the page and its Content-Security-Policy.
public struct PageLook: Sendable, Equatable {
    public var stylesheet: URL?
    public var branding: PageBranding?
    /// The sign-in's `ui_locales` (OIDC Core 3.1.2.1), kept from its authorization request.
    public var uiLocales: String?
    /// The auth service's `locale`: the language when neither the app nor the browser names one
    /// the broker has.
    public var defaultLanguage: String?

    public init(stylesheet: URL? = nil, branding: PageBranding? = nil, uiLocales: String? = nil, defaultLanguage: String? = nil) {
        self.stylesheet = stylesheet
        self.branding = branding
        self.uiLocales = uiLocales
        self.defaultLanguage = defaultLanguage
    }

    /// This look for a sign-in whose authorization request asked for `uiLocales`.
    public func reading(_ uiLocales: String?) -> PageLook {
        var look = self
        if let uiLocales { look.uiLocales = uiLocales }
        return look
    }
}
