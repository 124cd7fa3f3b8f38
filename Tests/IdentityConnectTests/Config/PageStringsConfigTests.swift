import Foundation
import IdentityApp
import IdentityConfig
import OAuthEngine
import PageLanguages
import Testing

/// `branding.strings` and an auth service's `locale` (docs/languages.md): the operator's wording
/// per language, merged service over environment message by message; a new language only whole;
/// typos in message ids, changed placeholders and unknown locales are problems.
@Suite("Config: page strings and locale")
struct PageStringsConfigTests {
    static func service(_ id: String, _ extra: String) -> String {
        BrandingConfigTests.service(id, nil).replacingOccurrences(of: "            provider:", with: extra + "            provider:")
    }

    @Test("the operator's words are read and merged; a complete new language is added; locale names a language")
    func read() throws {
        let italian = PageCatalog.messages.map { "\"\($0.replacingOccurrences(of: "\"", with: "\\\""))\": \"IT \($0.replacingOccurrences(of: "\"", with: "\\\""))\"" }
            .joined(separator: ", ")
        let environment = "{ strings: { de: { \"Sign in\": \"Einloggen\", \"Password\": \"Kennwort\" }, it: { \(italian) } } }"
        let own = Self.service("own", "            locale: it\n            branding: { strings: { de: { \"Sign   in\": \"Jetzt anmelden\" } } }\n")
        let directory = try ConfigLoaderTests.directory(["env.yaml": BrandingConfigTests.environment(environment, services: own)])
        let (config, clients) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
        let look = try #require(clients.resolve("kid_b.own")).look
        #expect(look.defaultLanguage == "it")
        #expect(look.branding?.strings["de"]?["Sign in"] == "Jetzt anmelden", "the service's wording wins")
        #expect(look.branding?.strings["de"]?["Password"] == "Kennwort", "the environment's fills in")
        #expect(look.branding?.strings["it"]?.count == PageCatalog.messages.count)
        #expect(DiscoveryEndpoint.pageLanguages(config) == ["en", "de", "fr", "es", "ru", "it"])
    }

    @Test("unknown message ids, changed placeholders, a partial new language, a bad tag and an unknown locale are problems")
    func problems() throws {
        let problems = try ConfigLoaderTests.problems(["env.yaml": BrandingConfigTests.environment(
            "{ strings: { de: { \"Sing in\": \"x\", \"Sign in to {0}\": \"Anmelden\", \"Help\": \"Hilfe {{#csrfToken}}\", \"Password\": \"Pass {{ wort\" }, it: { \"Sign in\": \"Accedi\" }, \"x\": {} } }",
            services: Self.service("s1", "            locale: ja\n"))]).map(\.description)
        func has(_ path: String, _ reason: String) -> Bool { problems.contains { $0.contains(path) && $0.contains(reason) } }
        #expect(has("branding.strings", "'Sing in' is not a message of the hosted pages"), "\(problems)")
        #expect(has("branding.strings", "must keep the placeholders {0}"), "\(problems)")
        #expect(has("branding.strings", "the text for 'Help' may not contain placeholders"), "a Mustache tag of its own: \(problems)")
        #expect(has("branding.strings", "the text for 'Password' may not contain placeholders"), "a stray {{: \(problems)")
        #expect(has("branding.strings", "adds a language the broker does not ship"), "\(problems)")
        #expect(has("branding.strings", "is not a language tag"), "\(problems)")
        #expect(has("authServices[0].locale", "'ja' is not a language of the hosted pages"), "\(problems)")
    }
}
