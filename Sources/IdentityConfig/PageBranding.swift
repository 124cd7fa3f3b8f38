import Foundation
import IdentityCore
import PageLanguages

/// `branding` of an environment or an auth service (docs/configuration.md, "Branding"): the
/// operator's product name, logo, favicon and colours on every hosted page, and the "Forgot
/// password?" and "Help" links of the login page. An auth service's settings win over its
/// environment's, key by key.
public struct PageBranding: Sendable, Equatable {
    /// Shown above each page's heading and in the browser tab's title.
    public var productName: String?
    public var logoURI: URL?
    public var faviconURI: URL?
    /// `#rrggbb`: buttons and links; white text on it must meet WCAG AA (4.5:1).
    public var primaryColor: String?
    /// `#rrggbb`: behind the page's card.
    public var backgroundColor: String?
    /// `#rrggbb`: the text on the white card; must meet 4.5:1 against white.
    public var textColor: String?
    public var forgotPasswordURI: URL?
    public var helpURI: URL?
    /// `strings`: the operator's wording per language (docs/languages.md), message id → text,
    /// over the shipped catalogs; a language the broker does not ship, given whole, is added.
    public var strings: [String: [String: String]] = [:]

    public init(productName: String? = nil, logoURI: URL? = nil, faviconURI: URL? = nil, primaryColor: String? = nil,
                backgroundColor: String? = nil, textColor: String? = nil, forgotPasswordURI: URL? = nil, helpURI: URL? = nil) {
        self.productName = productName
        self.logoURI = logoURI
        self.faviconURI = faviconURI
        self.primaryColor = primaryColor
        self.backgroundColor = backgroundColor
        self.textColor = textColor
        self.forgotPasswordURI = forgotPasswordURI
        self.helpURI = helpURI
    }

    /// These settings, with each one left out taken from `fallback` (an environment's).
    public func over(_ fallback: PageBranding?) -> PageBranding {
        guard let fallback else { return self }
        return PageBranding(
            productName: productName ?? fallback.productName, logoURI: logoURI ?? fallback.logoURI,
            faviconURI: faviconURI ?? fallback.faviconURI, primaryColor: primaryColor ?? fallback.primaryColor,
            backgroundColor: backgroundColor ?? fallback.backgroundColor, textColor: textColor ?? fallback.textColor,
            forgotPasswordURI: forgotPasswordURI ?? fallback.forgotPasswordURI, helpURI: helpURI ?? fallback.helpURI)
            .wording(strings.merging(fallback.strings) { own, theirs in own.merging(theirs) { mine, _ in mine } })
    }

    /// These settings with `strings` as the operator's wording.
    public func wording(_ strings: [String: [String: String]]) -> PageBranding {
        var branding = self
        branding.strings = strings
        return branding
    }
}

extension BrokerConfigReader {
    /// `branding`: `productName` (1–80 characters), `logoUri`, `faviconUri`, `forgotPasswordUri`,
    /// `helpUri` (https, or http to this machine) and `colors: {primary, background, text}`
    /// (`#rgb` or `#rrggbb`, kept as lowercase `#rrggbb`), with the contrast WCAG 2.2 AA asks of
    /// white text on `primary` and of `text` on the white card.
    func readBranding(_ reader: ConfigReader) -> PageBranding {
        let name = reader.string("productName")
        if let name, name.isEmpty || name.count > 80 || name.contains(where: \.isNewline) {
            reader.problem("productName", "must be 1 to 80 characters on one line")
        }
        var branding = PageBranding(
            productName: name, logoURI: webLink(reader, "logoUri"), faviconURI: webLink(reader, "faviconUri"),
            forgotPasswordURI: webLink(reader, "forgotPasswordUri"), helpURI: webLink(reader, "helpUri"))
        branding.strings = reader.section("strings") { readStrings($0) } ?? [:]
        _ = reader.section("colors") { colors in
            branding.primaryColor = Self.color(colors, "primary", against: "#ffffff", what: "white button text on it")
            branding.backgroundColor = Self.color(colors, "background", against: nil, what: "")
            branding.textColor = Self.color(colors, "text", against: "#ffffff", what: "it on the white card")
        }
        return branding
    }

    /// An https link (http only to 127.0.0.1, ::1 or localhost) of the pages a person sees.
    func webLink(_ reader: ConfigReader, _ key: String) -> URL? {
        guard let url = reader.url(key) else { return nil }
        let loopback = ["127.0.0.1", "[::1]", "::1", "localhost"].contains(url.host?.lowercased() ?? "")
        guard url.scheme?.lowercased() == "https" || loopback else {
            reader.problem(key, "must be an https URL (http only to 127.0.0.1, ::1 or localhost)")
            return nil
        }
        return url
    }

    private static func color(_ reader: ConfigReader, _ key: String, against other: String?, what: String) -> String? {
        guard let text = reader.string(key) else { return nil }
        guard let color = WCAGContrast.normalized(text) else {
            reader.problem(key, "must be a colour as #rgb or #rrggbb (found '\(text)')")
            return nil
        }
        if let other, let ratio = WCAGContrast.ratio(color, other), ratio < 4.5 {
            reader.problem(key, "gives \(what) a contrast of \(String(format: "%.2f", ratio)):1; WCAG 2.2 AA needs 4.5:1")
            return nil
        }
        return color
    }
}

/// Contrast between two colours as WCAG 2.2 defines it (relative luminance, 1:1 to 21:1).
public enum WCAGContrast {
    /// `#rgb` or `#rrggbb` as lowercase `#rrggbb`; nil for anything else.
    public static func normalized(_ text: String) -> String? {
        let hex = text.lowercased()
        guard hex.first == "#", hex.dropFirst().allSatisfy(\.isHexDigit) else { return nil }
        switch hex.count {
        case 7: return hex
        case 4: return "#" + hex.dropFirst().map { "\($0)\($0)" }.joined()
        default: return nil
        }
    }

    public static func ratio(_ first: String, _ second: String) -> Double? {
        guard let a = luminance(first), let b = luminance(second) else { return nil }
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    static func luminance(_ color: String) -> Double? {
        guard let hex = normalized(color), let value = Int(hex.dropFirst(), radix: 16) else { return nil }
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xff) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }
}
