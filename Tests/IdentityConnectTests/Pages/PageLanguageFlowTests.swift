import Foundation
import Hummingbird
import HummingbirdTesting
import PageLanguages
import Testing

/// Which language a sign-in's pages are in, end to end (docs/languages.md): `ui_locales` over
/// `Accept-Language` over the auth service's `locale` over English, kept for the whole sign-in,
/// the operator's wording over the catalog, and `ui_locales_supported` in discovery.
@Suite("Pages: the reader's language")
struct PageLanguageFlowTests {
    static func files(locale: String? = nil, strings: String? = nil) -> [String: String] {
        var files = TestBroker.defaultConfig()
        var extra = ""
        if let locale { extra += "        locale: \(locale)\n" }
        if let strings { extra += "        branding: { strings: \(strings) }\n" }
        files["environments/test.yaml"] = files["environments/test.yaml"]?
            .replacingOccurrences(of: "        grantTtl: 60\n", with: "        grantTtl: 60\n" + extra)
        return files
    }

    static func loginPage(_ client: any TestClientProtocol, _ extra: [(String, String)] = [], language: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let language { headers[.acceptLanguage] = language }
        return try await client.get("/oauth/auth?" + formEncode([
            ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
            ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")] + extra), headers: headers)
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "'", with: "&#39;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    @Test("ui_locales wins over Accept-Language and stays for the whole sign-in (the page after a wrong password)")
    func uiLocalesFirst() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let page = try await Self.loginPage(client, [("ui_locales", "ja fr-CA")], language: "de")
            #expect(page.text.contains(#"<html lang="fr" dir="ltr">"#), "\(page.text.prefix(200))")
            #expect(page.text.contains(">\(PageWords(language: "fr")("Sign in"))</button>"))
            let form = try #require(LoginFormFields(html: page.text))
            let cookie = try #require(page.cookies["idc_csrf"])
            let wrong = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "nope")],
                                                  headers: [.cookie: "idc_csrf=\(cookie)"])
            let retry = try await client.get(pathOf(try #require(wrong.location)), headers: [.cookie: "idc_csrf=\(cookie)"])
            #expect(retry.text.contains(#"<html lang="fr" dir="ltr">"#), "the stored ui_locales, with no header at all")
            let refusal = PageWords(language: "fr")("The username or password is incorrect.")
            #expect(retry.text.contains(#"id="error">"# + Self.escaped(refusal) + "</p>"), "\(retry.text)")
        }
    }

    @Test("Accept-Language by quality, a region falling back to its language; without either, English")
    func acceptLanguage() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let german = try await Self.loginPage(client, language: "ja, de-AT;q=0.8, en;q=0.5")
            #expect(german.text.contains(#"<html lang="de" dir="ltr">"#) && german.text.contains(">\(PageWords(language: "de")("Sign in"))</button>"))
            let english = try await Self.loginPage(client)
            #expect(english.text.contains(#"<html lang="en" dir="ltr">"#) && english.text.contains(">Sign in</button>"))
            let notFound = try await client.get("/no/such/page", headers: [.accept: "text/html", .acceptLanguage: "ru"])
            #expect(notFound.text.contains(#"<html lang="ru" dir="ltr">"#), "error pages too")
        }
    }

    @Test("the auth service's locale when neither names a language the broker has; the operator's words win")
    func serviceLocaleAndOwnWords() async throws {
        let broker = try await TestBroker.make(files: Self.files(locale: "es", strings: "{ es: { \"Sign in\": \"Entrar ahora\" } }"))
        try await broker.withClient { client in
            let spanish = try await Self.loginPage(client, language: "ja")
            #expect(spanish.text.contains(#"<html lang="es" dir="ltr">"#) && spanish.text.contains(">Entrar ahora</button>"), "\(spanish.text)")
            let russian = try await Self.loginPage(client, language: "ru")
            #expect(russian.text.contains(#"<html lang="ru" dir="ltr">"#), "the browser's language beats the service's default")
        }
    }

    @Test("discovery lists the pages' languages")
    func discovery() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let document = try await client.get("/.well-known/openid-configuration")
            #expect(document.json["ui_locales_supported"] as? [String] == ["en", "de", "fr", "es", "ru"])
        }
    }
}
