import Foundation
import Hummingbird
import IdentityConfig
import OAuthEngine
import PageLanguages

/// How a page looks (docs/configuration.md, "Branding"): what the layout takes from a
/// `PageLook`, and the answer whose Content-Security-Policy admits exactly what the look loads.
extension Pages {
    /// The layout's values: the stylesheet; the brand's header (logo, product name), favicon and
    /// colours; the login page's "Forgot password?" and "Help" links.
    static func lookValues(_ look: PageLook) -> [String: Any] {
        var values: [String: Any] = ["stylesheet": look.stylesheet?.absoluteString ?? false]
        guard let branding = look.branding else { return values }
        if branding.logoURI != nil || branding.productName != nil {
            let brand: [String: Any] = ["logo": branding.logoURI?.absoluteString ?? false, "productName": branding.productName ?? false]
            values["brand"] = brand
        }
        values["productName"] = branding.productName ?? false
        values["favicon"] = branding.faviconURI?.absoluteString ?? false
        // Colours were checked by the configuration (lowercase #rrggbb only): safe inside a style element.
        let colours = [("--primary", branding.primaryColor), ("--page", branding.backgroundColor), ("--text", branding.textColor)]
            .compactMap { name, value in value.map { "\(name):\($0)" } }
        if !colours.isEmpty { values["brandStyle"] = "<style>:root{\(colours.joined(separator: ";"))}</style>" }
        values["forgotPassword"] = branding.forgotPasswordURI?.absoluteString ?? false
        values["help"] = branding.helpURI?.absoluteString ?? false
        values["hasPageLinks"] = branding.forgotPasswordURI != nil || branding.helpURI != nil
        return values
    }

    /// `values` with the look's and the page language's added (the page's own values win).
    static func with(_ look: PageLook?, _ words: PageWords, _ values: [String: Any]) -> [String: Any] {
        let own = values.merging(wordValues(words)) { own, _ in own }
        guard let look else { return own }
        return own.merging(lookValues(look)) { own, _ in own }
    }

    /// A hosted page in `look`: its CSP admits the stylesheet's origin (styles, images, fonts), the
    /// brand's logo and favicon origins, and `imageSources`.
    static func html(_ text: String, look: PageLook, status: HTTPResponse.Status = .ok, imageSources: [String] = [],
                     scriptNonce: String? = nil, formActionSelf: Bool = false) -> Response {
        let styles = look.stylesheet.flatMap(origin(of:)).map { [$0] } ?? []
        let brandImages = [look.branding?.logoURI, look.branding?.faviconURI].compactMap { $0.flatMap(origin(of:)) }
        return Responses.html(text, status: status, styleSources: styles, imageSources: brandImages + imageSources,
                              scriptNonce: scriptNonce, formActionSelf: formActionSelf)
    }
}
