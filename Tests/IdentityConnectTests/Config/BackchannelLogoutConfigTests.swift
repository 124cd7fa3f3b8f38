import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import Testing

/// `backchannelLogoutUri` of an auth service (docs/configuration.md, "Auth services"): https, or
/// http to this machine only, never a fragment; every mistake named with its key path.
@Suite("Configuration: backchannelLogoutUri")
struct BackchannelLogoutConfigTests {
    static func service(_ id: String, _ uri: String) -> String {
        """
                  - id: \(id)
                    redirectUri: [ "https://app.example.com/cb" ]
                    backchannelLogoutUri: \(uri)
                    provider:
                      type: static
                      options: { users: [] }

        """
    }

    @Test("an https URL, or http to 127.0.0.1, ::1 or localhost, is where the service's clients are told")
    func accepted() throws {
        let directory = try ConfigLoaderTests.directory(["env.yaml": "environments:\n  - appKey: kid_b\n    authServices:\n"
            + Self.service("s1", "\"https://rp.example.com/logout?x=1\"") + Self.service("s2", "\"http://127.0.0.1:8081/bcl\"")
            + Self.service("s3", "\"http://[::1]:8081/bcl\"") + Self.service("s4", "\"http://localhost/bcl\"")])
        let (_, clients) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
        #expect(clients.resolve("kid_b.s1")?.service.backchannelLogoutURI?.absoluteString == "https://rp.example.com/logout?x=1")
        #expect(clients.resolve("kid_b.s2")?.service.backchannelLogoutURI?.absoluteString == "http://127.0.0.1:8081/bcl")
        #expect(clients.resolve("kid_b.s3")?.service.backchannelLogoutURI != nil)
        #expect(clients.resolve("kid_b.s4")?.service.backchannelLogoutURI != nil)
    }

    @Test("http elsewhere, a fragment, another scheme, a relative URL or a list are problems naming the key path")
    func problems() throws {
        let problems = try ConfigLoaderTests.problems(["env.yaml": "environments:\n  - appKey: kid_b\n    authServices:\n"
            + Self.service("s1", "\"http://rp.example.com/bcl\"") + Self.service("s2", "\"https://rp.example.com/bcl#frag\"")
            + Self.service("s3", "\"ftp://rp.example.com/bcl\"") + Self.service("s4", "\"/bcl\"")
            + Self.service("s5", "[ \"https://rp.example.com/bcl\" ]")]).map(\.description)
        func has(_ index: Int, _ reason: String) -> Bool {
            problems.contains { $0.contains("authServices[\(index)].backchannelLogoutUri") && $0.contains(reason) }
        }
        #expect(has(0, "must be an https URL (http only to 127.0.0.1, ::1 or localhost)"), "\(problems)")
        #expect(has(1, "must not have a fragment"))
        #expect(has(2, "must be an absolute http/https URL"))
        #expect(has(3, "must be an absolute http/https URL"))
        #expect(has(4, "must be a string"))
    }
}
