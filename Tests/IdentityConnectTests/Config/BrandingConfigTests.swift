import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import OAuthEngine
import Testing

/// `branding` of an environment and of an auth service (docs/configuration.md, "Branding"): read,
/// merged key by key (the service's win), and every mistake named with its key path — a colour
/// that would make text unreadable included.
@Suite("Configuration: branding")
struct BrandingConfigTests {
    static func service(_ id: String, _ branding: String?) -> String {
        """
                  - id: \(id)
                    redirectUri: [ "https://app.example.com/cb" ]
        \(branding.map { "            branding: \($0)\n" } ?? "")            provider:
                      type: static
                      options: { users: [] }

        """
    }

    static func environment(_ branding: String, services: String) -> String {
        "environments:\n  - appKey: kid_b\n    branding: \(branding)\n    authServices:\n" + services
    }

    @Test("every key is read; a service's settings win over its environment's, one by one; colours become lowercase #rrggbb")
    func merged() throws {
        let environment = """
            { productName: "Acme", logoUri: "https://cdn.acme.example/logo.svg", faviconUri: "https://cdn.acme.example/icon.png",
              helpUri: "https://help.acme.example/", colors: { primary: "#0B5CAD", background: "#eee", text: "#222" } }
            """
        let service = ##"{ productName: "Acme Expenses", forgotPasswordUri: "http://localhost:8081/reset", colors: { primary: "#7a1f1f" } }"##
        let directory = try ConfigLoaderTests.directory(["env.yaml": Self.environment(environment, services: Self.service("own", service)
            + Self.service("plain", nil))])
        let (_, clients) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
        let own = try #require(clients.resolve("kid_b.own")).look.branding
        #expect(own?.productName == "Acme Expenses" && own?.logoURI?.host == "cdn.acme.example")
        #expect(own?.forgotPasswordURI?.absoluteString == "http://localhost:8081/reset" && own?.helpURI != nil)
        #expect(own?.primaryColor == "#7a1f1f" && own?.backgroundColor == "#eeeeee" && own?.textColor == "#222222")
        let plain = try #require(clients.resolve("kid_b.plain")).look.branding
        #expect(plain?.productName == "Acme" && plain?.primaryColor == "#0b5cad" && plain?.forgotPasswordURI == nil)
    }

    @Test("a bad colour, one too light for white text or on white, http links elsewhere, a long name and unknown keys are problems")
    func problems() throws {
        let problems = try ConfigLoaderTests.problems(["env.yaml": Self.environment("{ colors: { primary: \"#ffcc00\" } }", services:
            Self.service("s1", "{ colors: { primary: \"blue\" } }")
            + Self.service("s2", "{ colors: { text: \"#999\" } }")
            + Self.service("s3", "{ logoUri: \"http://cdn.example.com/logo.png\" }")
            + Self.service("s4", "{ productName: \"\(String(repeating: "n", count: 81))\" }")
            + Self.service("s5", "{ colours: { primary: \"#000\" } }"))]).map(\.description)
        func has(_ path: String, _ reason: String) -> Bool { problems.contains { $0.contains(path) && $0.contains(reason) } }
        #expect(has("environments[0].branding.colors.primary", "contrast of 1.51:1"), "\(problems)")
        #expect(has("authServices[0].branding.colors.primary", "must be a colour as #rgb or #rrggbb"), "\(problems)")
        #expect(has("authServices[1].branding.colors.text", "WCAG 2.2 AA needs 4.5:1"), "\(problems)")
        #expect(has("authServices[2].branding.logoUri", "must be an https URL"))
        #expect(has("authServices[3].branding.productName", "1 to 80 characters"))
        #expect(has("authServices[4].branding.colours", "unknown key"))
    }

    @Test("contrast as WCAG 2.2 computes it")
    func contrast() {
        #expect(WCAGContrast.ratio("#000", "#fff").map { ($0 * 100).rounded() / 100 } == 21)
        #expect(WCAGContrast.ratio("#2456d3", "#ffffff").map { ($0 * 100).rounded() / 100 } == 6.27)
        #expect(WCAGContrast.ratio("#767c8a", "#fff").map { $0 >= 3 } == true, "the form fields' borders: at least 3:1")
        #expect(WCAGContrast.normalized("#ABC") == "#aabbcc" && WCAGContrast.normalized("#abcd") == nil && WCAGContrast.normalized("red") == nil)
    }
}
