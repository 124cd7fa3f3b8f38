import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityCore
import Logging
import OAuthEngine
import Testing

/// Pushed authorization requests (RFC 9126; docs/api-resources.md).
@Suite("Pushed authorization requests")
struct PushedAuthorizationTests {
    static func push(_ client: any TestClientProtocol, _ fields: [(String, String)],
                     headers: HTTPFields = basicAuth(TestBroker.appKey, TestBroker.appSecret)) async throws -> TestResponse {
        try await client.postForm("/oauth/par", fields, headers: headers)
    }

    static let request: [(String, String)] = [
        ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
        ("scope", "openid api:a"), ("state", "pushed-state"), ("code_challenge", Flows.challenge),
        ("code_challenge_method", "S256"), ("resource", APIFlows.apiA)]

    @Test("push, then /oauth/auth with the request_uri uses only the pushed parameters; single use; bound to its client; 60 s")
    func lifecycle() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files())
        try await broker.withClient { client in
            let pushed = try await Self.push(client, Self.request)
            #expect(pushed.status == .created)
            let uri = try #require(pushed.json["request_uri"] as? String)
            #expect(uri.hasPrefix("urn:ietf:params:oauth:request_uri:"))
            #expect(pushed.json["expires_in"] as? Int == 60)
            // The URL's own state is ignored: the pushed one comes back.
            let path = "/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("request_uri", uri), ("state", "url-state")])
            let answer = try await APIFlows.signIn(client, path: path)
            #expect(queryItems(try #require(answer.location))["state"] == "pushed-state")
            let tokens = try await APIFlows.exchange(client, answer)
            #expect(APIFlows.audiences(try #require(tokens.json["access_token"] as? String)) == [APIFlows.apiA])
            #expect(try await client.get(path).status == .badRequest)

            let other = try #require(try await Self.push(client, Self.request).json["request_uri"] as? String)
            #expect(try await client.get("/oauth/auth?" + formEncode([("client_id", TestBroker.appKey + ".opaque"), ("request_uri", other)])).status == .badRequest)
            let late = try #require(try await Self.push(client, Self.request).json["request_uri"] as? String)
            broker.clock.advance(61)
            #expect(try await client.get("/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("request_uri", late)])).status == .badRequest)
            #expect(try await client.get("/oauth/auth?" + formEncode([("client_id", TestBroker.appKey),
                                                                     ("request_uri", "urn:ietf:params:oauth:request_uri:forged")])).status == .badRequest)
        }
    }

    @Test("push refusals are JSON: wrong secret 401, unregistered redirect_uri, bad scope or resource, request_uri inside, an unknown client_id")
    func refusals() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files())
        try await broker.withClient { client in
            let wrong = try await Self.push(client, Self.request, headers: basicAuth(TestBroker.appKey, "wrong-secret-123"))
            #expect(wrong.status == .unauthorized && wrong.json["error"] as? String == "invalid_client")
            func refused(_ name: String, _ value: String) async throws -> TestResponse {
                try await Self.push(client, Self.request.filter { $0.0 != name } + [(name, value)])
            }
            #expect(try await refused("redirect_uri", "https://evil.example.com/cb").json["error"] as? String == "invalid_request")
            #expect(try await refused("scope", "api:admin").json["error"] as? String == "invalid_scope")
            #expect(try await refused("resource", APIFlows.admin).json["error"] as? String == "invalid_target")
            #expect(try await refused("request_uri", "urn:x").json["error"] as? String == "invalid_request")
            #expect(try await refused("client_id", "kid_other").json["error"] as? String == "invalid_client")
            #expect(try await refused("code_challenge_method", "plain").status == .badRequest)
        }
    }

    @Test("requirePar: unpushed requests and the automated grant are refused; pushed ones work; discovery says so only when all require it")
    func required() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files(requirePar: true))
        try await broker.withClient { client in
            let plain = try await client.get("/oauth/auth?" + APIFlows.authorizeQuery(scope: "openid"))
            #expect(queryItems(try #require(plain.location))["error"] == "invalid_request")
            let automated = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey),
                                                                       ("redirect_uri", TestBroker.redirect), ("response_type", "code")])
            #expect(automated.status == .badRequest)
            let uri = try #require(try await Self.push(client, Self.request).json["request_uri"] as? String)
            let answer = try await APIFlows.signIn(client, path: "/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("request_uri", uri)]))
            #expect(answer.status == .found && answer.location?.contains("code=") == true)
            let discovery = try await client.get("/.well-known/openid-configuration").json
            #expect(discovery["pushed_authorization_request_endpoint"] as? String == "http://127.0.0.1:8080/oauth/par")
            #expect(discovery["require_pushed_authorization_requests"] as? Bool == false)   // other services do not require it
        }
    }

    @Test("across instances on PostgreSQL: pushed on one, used on the other",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func twoInstances() async throws {
        let first = try await TestBroker.make(files: APIFlows.files(), backend: .postgres)
        let second = try await first.sibling()
        try await first.withClient { one in
            try await second.withClient { two in
                let uri = try #require(try await Self.push(one, Self.request).json["request_uri"] as? String)
                let answer = try await APIFlows.signIn(two, path: "/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("request_uri", uri)]))
                #expect(queryItems(try #require(answer.location))["state"] == "pushed-state")
            }
        }
    }
}

/// Key rotation reaches every broker at once (docs/operations.md, "Signing keys").
@Suite("Signing key rotation reaches running brokers")
struct KeyRotationReachTests {
    static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    @Test("SIGHUP after keys rotate: the new key signs at once and both are in the JWKS; old tokens keep validating")
    func sighup() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let old = try #require(try await Flows.tokens(client)["access_token"] as? String)
            let oldKid = try #require(Self.kid(old))
            let tools = try await OperatorTools.open(configDirectory: broker.configDirectory.path, storage: broker.storage,
                                                     registry: TestBroker.defaultRegistry,
                                                     environment: ["TEST_APP_SECRET": TestBroker.appSecret], clock: broker.clock, logger: Self.quiet)
            let newKid = try await tools.rotateSigningKey()
            #expect(await ReloadService(prepared: broker.prepared, logger: Self.quiet).reload())
            let fresh = try #require(try await Flows.tokens(client)["access_token"] as? String)
            #expect(Self.kid(fresh) == newKid)
            let kids = try #require(try await client.get("/.well-known/jwks.json").json["keys"] as? [[String: Any]]).compactMap { $0["kid"] as? String }
            #expect(Set(kids) == [oldKid, newKid])
            #expect(try await Flows.validate(client, old).status == .ok)
        }
    }

    @Test("another instance on PostgreSQL adopts the rotated key on its next check (every 5 s), without a signal",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func sibling() async throws {
        let first = try await TestBroker.make(backend: .postgres)
        let second = try await first.sibling()
        let tools = try await OperatorTools.open(configDirectory: first.configDirectory.path, storage: first.storage,
                                                 registry: TestBroker.defaultRegistry,
                                                 environment: ["TEST_APP_SECRET": TestBroker.appSecret], clock: first.clock, logger: Self.quiet)
        let newKid = try await tools.rotateSigningKey()
        #expect(second.engine.state.keys.active.kid != newKid)
        await KeyWatchService(engine: second.engine, logger: Self.quiet).runOnce()
        #expect(second.engine.state.keys.active.kid == newKid)
    }

    static func kid(_ token: String) -> String? {
        guard let header = token.split(separator: ".").first, let data = Base64URL.decode(String(header)),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["kid"] as? String
    }
}
