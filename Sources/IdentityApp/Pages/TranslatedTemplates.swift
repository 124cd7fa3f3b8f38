import Foundation
import Mustache
import PageLanguages
import Synchronization

/// The hosted pages' templates (their Mustache sources in `PageTemplates`).
enum PageTemplate: String, CaseIterable, Sendable {
    case login, error, autoPost, signedOut, accounts, logoutConfirm
    case qrLogin, qrRefused, qrExpired, qrScanHint, secondStep, consent
    case account, accountAuthenticator, accountPasskey, accountSignedOut
    case deviceCodeForm, deviceConfirmation, deviceFinished

    var source: String {
        switch self {
        case .login: PageTemplates.login
        case .error: PageTemplates.error
        case .autoPost: PageTemplates.autoPost
        case .signedOut: PageTemplates.signedOut
        case .accounts: PageTemplates.accounts
        case .logoutConfirm: PageTemplates.logoutConfirm
        case .qrLogin: PageTemplates.qrLogin
        case .qrRefused: PageTemplates.qrRefused
        case .qrExpired: PageTemplates.qrExpired
        case .qrScanHint: PageTemplates.qrScanHint
        case .secondStep: PageTemplates.secondStep
        case .consent: PageTemplates.consent
        case .account: PageTemplates.account
        case .accountAuthenticator: PageTemplates.accountAuthenticator
        case .accountPasskey: PageTemplates.accountPasskey
        case .accountSignedOut: PageTemplates.accountSignedOut
        case .deviceCodeForm: PageTemplates.deviceCodeForm
        case .deviceConfirmation: PageTemplates.deviceConfirmation
        case .deviceFinished: PageTemplates.deviceFinished
        }
    }
}

/// Each template compiled once per language (docs/languages.md): its `{{#t}}…{{/t}}` words
/// replaced by their wording in that language — escaped, placeholders kept for Mustache — before
/// it is parsed, so rendering a page costs what it did in one language. Keyed by template,
/// language and the operator's wording; a few hundred entries at most (templates × languages ×
/// brandings with `strings`), emptied if it ever passes `limit`.
final class TranslatedTemplates: Sendable {
    private let compiled = Mutex<[String: MustacheTemplate]>([:])
    static let limit = 2000

    func template(_ page: PageTemplate, _ words: PageWords) -> MustacheTemplate {
        let key = "\(page.rawValue)\u{0}\(words.identity)"
        if let found = compiled.withLock({ $0[key] }) { return found }
        // The wording keeps each message's placeholders and adds no Mustache tags (checked for the
        // catalogs by the tests and for `branding.strings` by the configuration); should a
        // translated source still not parse, the page is rendered in English rather than not at all.
        let template = (try? MustacheTemplate(string: Self.translate(page.source, words)))
            ?? (try! MustacheTemplate(string: Self.translate(page.source, .english)))
        compiled.withLock { cache in
            if cache.count >= Self.limit { cache.removeAll() }
            cache[key] = template
        }
        return template
    }

    /// `source` with every `{{#t}}message{{/t}}` replaced by the message's wording in `words`.
    static func translate(_ source: String, _ words: PageWords) -> String {
        var result = ""
        var rest = source[...]
        while let open = rest.range(of: "{{#t}}"), let close = rest[open.upperBound...].range(of: "{{/t}}") {
            result += rest[..<open.lowerBound]
            result += escapedKeepingEmphasis(words(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// `text` HTML-escaped, except `<strong>` and `<code>` (a catalog sentence may emphasise a
    /// name); `{{…}}` placeholders are untouched (braces are not special in HTML).
    static func escapedKeepingEmphasis(_ text: String) -> String {
        guard text.contains(where: { "&<>\"'".contains($0) }) else { return text }
        var escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
        for tag in ["strong", "code"] {
            escaped = escaped.replacingOccurrences(of: "&lt;\(tag)&gt;", with: "<\(tag)>")
                .replacingOccurrences(of: "&lt;/\(tag)&gt;", with: "</\(tag)>")
        }
        return escaped
    }
}
