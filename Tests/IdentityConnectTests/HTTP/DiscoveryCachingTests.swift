import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityApp
import Logging
import Testing

/// Discovery and JWKS are served as precomputed bytes with a strong ETag (docs/protocol.md,
/// "Discovery"); a reload or key rotation makes new ones, and If-None-Match gets 304.
@Suite("Discovery and JWKS: cached bytes, ETag and 304")
struct DiscoveryCachingTests {
    static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    @Test("the same bytes and ETag each time; If-None-Match gets 304 without a body; both discovery paths agree")
    func conditionalGet() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            for path in ["/.well-known/openid-configuration", "/.well-known/jwks.json"] {
                let first = try await client.get(path)
                let etag = try #require(first.headers[.eTag])
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
                let second = try await client.get(path)
                #expect(second.headers[.eTag] == etag && second.text == first.text)
                let unchanged = try await client.get(path, headers: [.ifNoneMatch: "\"other\", \(etag)"])
                #expect(unchanged.status == .notModified)
                #expect(unchanged.text.isEmpty)
                #expect(unchanged.headers[.eTag] == etag)
                #expect(try await client.get(path, headers: [.ifNoneMatch: "\"stale\""]).status == .ok)
                #expect(try await client.get(path, headers: [.ifNoneMatch: "W/\(etag)"]).status == .notModified)
            }
            let openid = try await client.get("/.well-known/openid-configuration")
            let oauth = try await client.get("/.well-known/oauth-authorization-server")
            #expect(openid.text == oauth.text && openid.headers[.eTag] == oauth.headers[.eTag])
        }
    }

    @Test("a key rotation makes a new JWKS and ETag; a reload that adds a scope makes a new discovery document")
    func invalidation() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let jwks = try await client.get("/.well-known/jwks.json")
            let discovery = try await client.get("/.well-known/openid-configuration")
            let tools = try await OperatorTools.open(configDirectory: broker.configDirectory.path, storage: broker.storage,
                                                     registry: TestBroker.defaultRegistry,
                                                     environment: ["TEST_APP_SECRET": TestBroker.appSecret], clock: broker.clock,
                                                     logger: Self.quiet)
            let newKid = try await tools.rotateSigningKey()
            let file = broker.configDirectory.appendingPathComponent("environments/test.yaml")
            let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                of: "    defaultAuthService: users\n",
                with: "    defaultAuthService: users\n    apiResources: [ { scope: orders.read, audience: \"https://api.example.com/orders\" } ]\n")
            try text.write(to: file, atomically: true, encoding: .utf8)
            #expect(await ReloadService(prepared: broker.prepared, logger: Self.quiet).reload())

            let rotated = try await client.get("/.well-known/jwks.json", headers: [.ifNoneMatch: try #require(jwks.headers[.eTag])])
            #expect(rotated.status == .ok)
            #expect(rotated.headers[.eTag] != jwks.headers[.eTag])
            #expect(rotated.text.contains(newKid))
            let reloaded = try await client.get("/.well-known/openid-configuration",
                                                headers: [.ifNoneMatch: try #require(discovery.headers[.eTag])])
            #expect(reloaded.status == .ok)
            #expect(reloaded.text.contains("orders.read"))
        }
    }
}
