import Foundation
import Hummingbird
import OAuthEngine
import PageLanguages

/// What the request being answered says about its reader's language (docs/languages.md): the
/// `ui_locales` parameter on it and its `Accept-Language`; set by `BrokerMiddleware` around
/// every route, read by `Pages.words`.
enum PageLanguageRequest {
    struct Preferences: Sendable {
        var uiLocales: String?
        var acceptLanguage: String?

        init(uiLocales: String? = nil, acceptLanguage: String? = nil) {
            self.uiLocales = uiLocales
            self.acceptLanguage = acceptLanguage
        }

        /// The request's: its query is parsed only when it names `ui_locales`.
        init(_ request: Request) {
            let asked = request.uri.query?.contains("ui_locales") == true
            self.init(uiLocales: asked ? request.uri.queryParameters.get("ui_locales") : nil,
                      acceptLanguage: request.headers[.acceptLanguage])
        }
    }

    @TaskLocal static var preferences = Preferences()
}

extension Pages {
    /// The page's language: the sign-in's `ui_locales` (kept from its authorization request) or
    /// this request's, then `Accept-Language`, then the auth service's `locale`, then English;
    /// with the operator's `branding.strings` for that language.
    static func words(_ look: PageLook?) -> PageWords {
        let strings = look?.branding?.strings ?? [:]
        let shipped = PageCatalog.shippedLanguages
        let available = shipped + strings.keys.filter { !shipped.contains($0) }.sorted()
        let request = PageLanguageRequest.preferences
        let language = LanguageChoice.choose(uiLocales: look?.uiLocales ?? request.uiLocales, acceptLanguage: request.acceptLanguage,
                                             serviceDefault: look?.defaultLanguage, available: available)
        return PageWords(language: language, overrides: strings[language] ?? [:])
    }

    /// The layout's language values: `lang` and `dir` (the words are in the template already,
    /// `TranslatedTemplates`).
    static func wordValues(_ words: PageWords) -> [String: Any] {
        ["lang": words.language, "dir": words.direction]
    }
}
