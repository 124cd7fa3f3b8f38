import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityCore
import JOSE
import Logging
import StaticConnector
import Testing

@Suite("Operations: health, readiness, metrics, reload, key rotation, garbage collection")
struct OperationsTests {
    static var quiet: Logger {
        var logger = Logger(label: "ops-test")
        logger.logLevel = .critical
        return logger
    }

    @Test("healthz and readyz answer 200; metrics count requests, logins and vault operations")
    func healthAndMetrics() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let health = try await client.get("/healthz")
            #expect(health.status == .ok && health.text == #"{"status":"ok"}"#)
            #expect(health.headers[.contentType] == "application/json; charset=utf-8" && health.headers[.cacheControl] == "no-store")
            #expect(try await client.get("/readyz").status == .ok)
            _ = try await Flows.tokens(client)
            _ = try await Flows.automatedLogin(client, password: "wrong")
            let text = try await client.get("/metrics").text
            #expect(text.contains(#"idconnect_http_requests_total{route="/oauth/token",method="POST",status="200"} 1"#))
            #expect(text.contains(#"idconnect_logins_total{connector="static",outcome="success"} 1"#))
            #expect(text.contains(#"idconnect_logins_total{connector="static",outcome="rejected"} 1"#))
            #expect(text.contains(#"idconnect_http_request_duration_seconds_bucket{route="/oauth/token",le="+Inf"} 1"#))
            #expect(text.contains("# TYPE idconnect_upstream_refreshes_total counter"))
            // Raw paths with secrets never become labels.
            #expect(!text.contains("/oauth/authenticate/") || text.contains("/oauth/authenticate/{id}") || text.contains("/oauth/authenticate/:id"))
        }
    }

    @Test("HEAD is answered for GET routes (health checkers use it), with the GET's status and no body")
    func head() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            for path in ["/healthz", "/readyz", "/.well-known/openid-configuration", "/.well-known/jwks.json"] {
                let answer = try await client.execute(uri: path, method: .head)
                #expect(answer.status == .ok, "\(path)")
                #expect(answer.body.readableBytes == 0, "\(path)")
            }
        }
    }

    @Test("readyz answers 503 when storage is gone")
    func notReady() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            try await broker.engine.storage.maintenance.close()
            let response = try await client.get("/readyz")
            #expect(response.status == .serviceUnavailable)
            #expect(try await client.get("/healthz").status == .ok)
        }
    }

    @Test("SIGHUP reload: a good file takes effect, a bad one is rejected and the old config keeps serving")
    func reload() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let service = ReloadService(prepared: broker.prepared, logger: Self.quiet)
            try broker.writeConfig("environments/extra.yaml", """
            environments:
              - appKey: kid_new
                appSecret: new-secret-1234
                authServices:
                  - id: s
                    redirectUri: [ "\(TestBroker.redirect)" ]
                    provider: { type: static, options: { users: [ { username: zed, passwordHash: "\(TestBroker.hashes["alice"]!)" } ] } }
            """)
            #expect(await service.reload())
            let newClient = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "zed"), ("password", "alicepw")],
                                                      headers: basicAuth("kid_new", "new-secret-1234"))
            #expect(newClient.status == .ok)
            try broker.writeConfig("environments/extra.yaml", "environments:\n  - appKey: kid_new\n    typo: true\n")
            #expect(await !service.reload())
            #expect(try await Flows.tokens(client)["access_token"] is String)
            let stillThere = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "zed"), ("password", "alicepw")],
                                                       headers: basicAuth("kid_new", "new-secret-1234"))
            #expect(stillThere.status == .ok)
        }
    }

    @Test("keys rotate: the new key signs, the old one stays in the JWKS and old tokens keep validating")
    func keyRotation() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let old = try #require(try await Flows.tokens(client)["access_token"] as? String)
            let oldKid = broker.engine.state.keys.active.kid
            let tools = try await OperatorTools.open(configDirectory: broker.configDirectory.path, storage: "sqlite:\(broker.databasePath)",
                                                     registry: TestBroker.defaultRegistry, environment: ["TEST_APP_SECRET": TestBroker.appSecret],
                                                     clock: broker.clock, logger: Self.quiet)
            let newKid = try await tools.rotateSigningKey()
            try await MaintenanceService(engine: broker.engine, interval: .seconds(60), logger: Self.quiet).reloadKeysIfChanged()
            #expect(broker.engine.state.keys.active.kid == newKid)
            let jwks = try await client.get("/.well-known/jwks.json").text
            #expect(jwks.contains(oldKid) && jwks.contains(newKid))
            #expect(try await Flows.validate(client, old).status == .ok)
            let fresh = try #require(try await Flows.tokens(client)["access_token"] as? String)
            let header = String(decoding: Data(base64URL: fresh.split(separator: ".")[0])!, as: UTF8.self)
            #expect(header.contains(newKid))
            // After the retention period the old key leaves the JWKS.
            broker.clock.advance(tools.keyRetention + 1)
            try await MaintenanceService(engine: broker.engine, interval: .seconds(60), logger: Self.quiet).reloadKeysIfChanged()
            #expect(!(try await client.get("/.well-known/jwks.json").text.contains(oldKid)))
        }
    }

    @Test("a token signed with a key another instance just made validates at once; unknown kids read storage at most every 2 s")
    func siblingKeys() async throws {
        let broker = try await TestBroker.make()
        let tools = try await OperatorTools.open(configDirectory: broker.configDirectory.path, storage: "sqlite:\(broker.databasePath)",
                                                 registry: TestBroker.defaultRegistry, environment: ["TEST_APP_SECRET": TestBroker.appSecret],
                                                 clock: broker.clock, logger: Self.quiet)
        @Sendable func kid(_ token: String) -> String? {
            (try? JSONSerialization.jsonObject(with: Data(base64URL: token.split(separator: ".")[0]) ?? Data())).flatMap { ($0 as? [String: Any])?["kid"] as? String }
        }
        /// Signs in at a new instance started now, which loads whatever keys storage holds.
        @Sendable func tokenFromSibling() async throws -> String {
            try await broker.sibling().withClient { try #require(try await Flows.tokens($0)["access_token"] as? String) }
        }
        try await broker.withClient { client in
            // Another instance made a key that this one has not loaded (no housekeeping run in between).
            let second = try await tools.rotateSigningKey()
            #expect(broker.engine.state.keys.verificationKeys[second] == nil)
            let token = try await tokenFromSibling()
            #expect(kid(token) == second)
            #expect(try await Flows.validate(client, token).status == .ok)
            #expect(broker.engine.state.keys.verificationKeys[second] != nil)
            #expect(try await Flows.introspect(client, token)["active"] as? Bool == true)

            // A key made within 2 s of that storage read is not looked for again until 2 s have passed.
            let third = try await tools.rotateSigningKey()
            let later = try await tokenFromSibling()
            #expect(kid(later) == third)
            #expect(try await Flows.validate(client, later).status == .unauthorized)
            broker.clock.advance(3)
            #expect(try await Flows.validate(client, later).status == .ok)

            // A made-up kid is refused like any bad signature and changes nothing.
            let parts = later.split(separator: ".").map(String.init)
            let forgedHeader = Data(#"{"alg":"RS256","kid":"made-up","typ":"at+jwt"}"#.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            broker.clock.advance(3)
            #expect(try await Flows.validate(client, [forgedHeader, parts[1], parts[2]].joined(separator: ".")).status == .unauthorized)
            #expect(broker.engine.state.keys.active.kid == third)
        }
    }

    @Test("garbage collection removes expired codes, pending authorizations and sessions")
    func garbageCollection() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            _ = try await Flows.automatedLogin(client)
            _ = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code")])
            broker.clock.advance(86_400 + 120)
            let removed = try await broker.engine.storage.maintenance.purgeExpired(before: broker.clock.now())
            #expect(removed >= 2)
            broker.clock.advance(1_209_600 + 10)
            _ = try await Flows.tokens(client)
            broker.clock.advance(1_209_600 + 3_700)
            #expect(try await broker.engine.storage.maintenance.purgeExpired(before: broker.clock.now()) >= 2)
        }
    }
}
