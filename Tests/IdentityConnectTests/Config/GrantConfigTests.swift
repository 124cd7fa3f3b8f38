import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import Testing

/// `deviceGrant` and `tokenExchange` of an auth service and `rateLimits.userCodesPerMinute`
/// (docs/configuration.md): read with their defaults, every mistake a problem naming the key path.
@Suite("Configuration: deviceGrant and tokenExchange")
struct GrantConfigTests {
    static func environment(_ extra: String, links: String = "", resources: String = "") -> String {
        """
        environments:
          - appKey: kid_g
            authServices:
        \(ConfigLoaderTests.service("s1", extra: extra))
        \(links)\(resources)
        """
    }

    @Test("read with defaults: enabled device grant 600 s / 5 s, an exchange allow-list, userCodesPerMinute 10")
    func defaults() throws {
        let directory = try ConfigLoaderTests.directory([
            "env.yaml": Self.environment("        deviceGrant: { enabled: true }\n        tokenExchange: { audiences: [ \"https://api.example.com\" ], actors: [ kid_g ], dataLinks: [ crm ] }",
                                         links: "    dataLinks: [ { name: crm, url: \"https://crm.example.com\" } ]\n",
                                         resources: "    apiResources: [ { scope: \"api:x\", audience: \"https://api.example.com\" } ]\n"),
        ])
        let (config, clients) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
        let service = try #require(clients.resolve("kid_g")?.service)
        #expect(service.deviceGrant == DeviceGrantSettings(lifetime: 600, interval: 5))
        #expect(service.tokenExchange == TokenExchangeSettings(audiences: ["https://api.example.com"], actors: ["kid_g"], dataLinks: ["crm"]))
        #expect(config.server.rateLimits.userCodesPerMinute == 10)
    }

    @Test("disabled or absent: nil; out-of-range times, unknown data links and undeclared audiences are problems")
    func problems() throws {
        let off = try ConfigLoaderTests.directory(["env.yaml": Self.environment("        deviceGrant: { enabled: false }")])
        let (_, clients) = try BrokerBootstrap.loadConfig(directory: off, registry: ConfigLoaderTests.registry, environment: [:])
        #expect(clients.resolve("kid_g")?.service.deviceGrant == nil && clients.resolve("kid_g")?.service.tokenExchange == nil)
        let problems = try ConfigLoaderTests.problems(["env.yaml": Self.environment(
            "        deviceGrant: { enabled: true, lifetime: 5, interval: 600 }\n        tokenExchange: { audiences: [ \"https://nowhere.example.com\", \"relative\" ], dataLinks: [ ghost ], actors: [ kid_other, kid_g.nope, \"kid_g.\" ], upstreamAudiences: [ app ] }")])
            .map(\.description)
        func has(_ path: String, _ reason: String) -> Bool { problems.contains { $0.contains(path) && $0.contains(reason) } }
        #expect(has("authServices[0].deviceGrant.lifetime", "must be between 60 and 3600 seconds"), "\(problems)")
        #expect(has("authServices[0].deviceGrant.interval", "must be between 1 and 60 seconds"))
        #expect(has("authServices[0].tokenExchange.dataLinks", "'ghost' is not a data link of this environment"))
        #expect(has("authServices[0].tokenExchange.audiences", "'https://nowhere.example.com' is not the audience of one of the environment's apiResources"))
        #expect(has("authServices[0].tokenExchange.audiences", "'relative' is not an absolute URI"))
        #expect(has("authServices[0].tokenExchange.actors", "'kid_other' is not a client id of this environment"))
        #expect(has("authServices[0].tokenExchange.actors", "'kid_g.nope' is not a client id of this environment"))
        #expect(has("authServices[0].tokenExchange.actors", "'kid_g.' is not a client id of this environment"))
        #expect(has("authServices[0].tokenExchange.upstreamAudiences", "means nothing without upstreamTokens: true"))
        let static_ = try ConfigLoaderTests.problems(["env.yaml": Self.environment("        tokenExchange: { upstreamTokens: true }")])
        #expect(static_.contains { $0.description.contains("only oauth2 and openid-connect auth services") })
    }
}
