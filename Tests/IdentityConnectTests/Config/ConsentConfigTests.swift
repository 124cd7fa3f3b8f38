import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import Testing

/// `consent` of an auth service (docs/consent.md, "Configuration"): the mode, the app's links,
/// scope descriptions; every mistake named with its key path.
@Suite("Configuration: consent")
struct ConsentConfigTests {
    static func service(_ id: String, _ consent: String) -> String {
        """
                  - id: \(id)
                    redirectUri: [ "https://app.example.com/cb" ]
                    consent: \(consent)
                    provider:
                      type: static
                      options: { users: [] }

        """
    }

    @Test("mode, links and scope words are read; a service without consent asks nobody")
    func accepted() throws {
        let full = """
            { mode: remembered, logoUri: "https://cdn.example.com/logo.png", clientUri: "https://expenses.example.com",
                        policyUri: "https://expenses.example.com/privacy", tosUri: "http://localhost:8081/terms",
                        scopes: { expenses.read: "Read your expense reports" } }
            """
        let directory = try ConfigLoaderTests.directory(["env.yaml": "environments:\n  - appKey: kid_c\n    authServices:\n"
            + Self.service("s1", full) + Self.service("s2", "{ mode: required }")])
        let (_, clients) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
        let consent = try #require(clients.resolve("kid_c.s1")?.service.consent)
        #expect(consent.mode == .remembered && consent.logoURI?.host == "cdn.example.com" && consent.clientURI != nil)
        #expect(consent.policyURI != nil && consent.tosURI?.absoluteString == "http://localhost:8081/terms")
        #expect(consent.scopeDescriptions == ["expenses.read": "Read your expense reports"])
        #expect(clients.resolve("kid_c.s2")?.service.consent?.mode == .required)
    }

    @Test("a missing or unknown mode, http links elsewhere, an empty description and unknown keys are problems naming the key path")
    func problems() throws {
        let problems = try ConfigLoaderTests.problems(["env.yaml": "environments:\n  - appKey: kid_c\n    authServices:\n"
            + Self.service("s1", "{ logoUri: \"https://cdn.example.com/l.png\" }") + Self.service("s2", "{ mode: always }")
            + Self.service("s3", "{ mode: required, policyUri: \"http://example.com/privacy\" }")
            + Self.service("s4", "{ mode: required, scopes: { email: \"\" } }")
            + Self.service("s5", "{ mode: required, remember: true }") + Self.service("s6", "required")]).map(\.description)
        func has(_ index: Int, _ key: String, _ reason: String) -> Bool {
            problems.contains { $0.contains("authServices[\(index)].consent\(key)") && $0.contains(reason) }
        }
        #expect(has(0, ".mode", "is required"), "\(problems)")
        #expect(has(1, ".mode", "must be required or remembered"), "\(problems)")
        #expect(has(2, ".policyUri", "must be an https URL"))
        #expect(has(3, ".scopes", "needs a description of 1 to 200 bytes"))
        #expect(has(4, ".remember", "unknown key"))
        #expect(!problems.contains { $0.contains("consent.logoUri") }, "a missing mode does not make the other keys unknown")
        #expect(has(5, "", "must be a map"))
    }
}
