import Foundation
import IdentityConfig

/// How a hosted page looks (docs/configuration.md, "Branding"): the operator's stylesheet
/// (`customizedLogin: css`) and the branding of the client's auth service and environment. Every
/// page model carries one; the app renders it into the page and its Content-Security-Policy.
public struct PageLook: Sendable, Equatable {
    public var stylesheet: URL?
    public var branding: PageBranding?

    public init(stylesheet: URL? = nil, branding: PageBranding? = nil) {
        self.stylesheet = stylesheet
        self.branding = branding
    }
}
