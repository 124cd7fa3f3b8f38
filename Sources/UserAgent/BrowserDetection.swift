/// Finds the browser in a tokenized User-Agent.
///
/// Browsers built on Chromium or WebKit also claim "Chrome" and "Safari", so the distinctive tokens
/// are tried first, in the order of ``rules``; Safari is believed only on Apple platforms.
enum BrowserDetection {
    /// A product token that identifies a browser, the name to show, and how many version components to keep.
    struct Rule {
        let token: String
        let name: String
        let components: Int
    }

    static let rules: [Rule] = [
        Rule(token: "YaBrowser", name: "Yandex Browser", components: 1),
        Rule(token: "SamsungBrowser", name: "Samsung Internet", components: 1),
        Rule(token: "OPR", name: "Opera", components: 1),
        Rule(token: "OPiOS", name: "Opera", components: 1),
        Rule(token: "EdgA", name: "Edge", components: 1),
        Rule(token: "EdgiOS", name: "Edge", components: 1),
        Rule(token: "Edg", name: "Edge", components: 1),
        Rule(token: "Edge", name: "Edge", components: 1),
        Rule(token: "Vivaldi", name: "Vivaldi", components: 1),
        Rule(token: "UCBrowser", name: "UC Browser", components: 1),
        Rule(token: "MiuiBrowser", name: "MIUI Browser", components: 1),
        Rule(token: "Silk", name: "Silk", components: 1),
        Rule(token: "FxiOS", name: "Firefox", components: 1),
        Rule(token: "Firefox", name: "Firefox", components: 1),
        Rule(token: "CriOS", name: "Chrome", components: 1),
        Rule(token: "Chrome", name: "Chrome", components: 1),
        Rule(token: "Kindle", name: "Kindle", components: 1),
    ]

    /// Substrings of a product name that mark a crawler or automation tool (checked lower-cased).
    static let automationMarkers = ["bot", "crawler", "spider", "slurp", "headless", "facebookexternalhit"]

    /// A crawler or automation tool named in a product token or a `name/version` comment part.
    static func automatedAgent(in tokens: UserAgentTokens) -> Software? {
        let candidates = tokens.products + tokens.commentParts.map(UserAgentTokens.Product.init)
        for product in candidates {
            let lowered = product.name.lowercased()
            guard automationMarkers.contains(where: lowered.contains),
                let name = VersionText.token(product.name, maximumLength: 64, isName: true)
            else { continue }
            return Software(name: name, version: product.version.flatMap { VersionText.token($0) })
        }
        return nil
    }

    /// The first product token, for clients that are not browsers (curl, python-requests, okhttp).
    static func leadingProduct(in tokens: UserAgentTokens) -> Software? {
        guard let first = tokens.products.first, let version = first.version,
            let name = VersionText.token(first.name, maximumLength: 64, isName: true)
        else { return nil }
        return Software(name: name, version: VersionText.token(version))
    }

    /// The browser, or nil when no rule matches.
    static func browser(in tokens: UserAgentTokens, isApplePlatform: Bool) -> Software? {
        if let legacyOpera = tokens.product("Opera"), tokens.isBrowserLike {
            let version = tokens.product("Version")?.version ?? legacyOpera.version
            return Software(name: "Opera", version: version.flatMap { VersionText.numeric($0, components: 1) })
        }
        for rule in rules {
            if let product = tokens.product(rule.token) {
                let version = product.version.flatMap { VersionText.numeric($0, components: rule.components) }
                return Software(name: rule.name, version: version)
            }
        }
        if let explorer = internetExplorer(in: tokens) { return explorer }
        if let version = tokens.product("Version")?.version, tokens.product("Safari") != nil {
            if isApplePlatform {
                return Software(name: "Safari", version: VersionText.numeric(version, components: 2))
            }
            if tokens.hasCommentPart("Android") {
                return Software(name: "Android Browser", version: VersionText.numeric(version, components: 2))
            }
        }
        return nil
    }

    /// Internet Explorer: "IEMobile/11.0" on Windows Phone, "MSIE 10.0" up to version 10,
    /// "Trident/7.0; rv:11.0" for 11.
    private static func internetExplorer(in tokens: UserAgentTokens) -> Software? {
        if let part = tokens.commentParts.first(where: { $0.hasPrefix("IEMobile/") }) {
            return Software(name: "IE Mobile", version: VersionText.numeric(part.dropFirst(9), components: 1))
        }
        if let part = tokens.commentParts.first(where: { $0.hasPrefix("MSIE ") }) {
            return Software(name: "Internet Explorer", version: VersionText.numeric(part.dropFirst(5), components: 1))
        }
        if tokens.commentParts.contains(where: { $0.hasPrefix("Trident/") }),
            let revision = tokens.commentParts.first(where: { $0.hasPrefix("rv:") })
        {
            return Software(name: "Internet Explorer", version: VersionText.numeric(revision.dropFirst(3), components: 1))
        }
        return nil
    }
}
