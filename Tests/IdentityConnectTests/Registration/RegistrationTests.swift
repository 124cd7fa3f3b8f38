import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityCore
import JOSE
import Logging
import NIOCore
import OAuthEngine
import Testing

/// Dynamic registration of mobile app instances through HTTP
/// (docs/protocol.md, "Mobile app instances").
@Suite("Mobile app instance registration")
struct RegistrationTests {
    static let iat = "initial-access-token-0123456789"
    static let statementKey = try! SigningKey.generate(.es256)
    static let otherKey = try! SigningKey.generate(.es256)

    /// The default test config plus a `registration` section whose secrets come by reference.
    /// The default test configuration with registration of app instances (software `CSI`).
    static func registrationFiles() -> [String: String] {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"]! += """

            registration:
              initialAccessTokens: [ ${env:TEST_IAT} ]
              softwareStatements: { CSI: { jwks: ${env:CSI_JWKS} } }
        """
        return files
    }

    static func make(files: [String: String] = registrationFiles(), clock: ManualClock = ManualClock(),
                     backend: StoreBackend = .sqlite) async throws -> TestBroker {
        let jwks = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [statementKey.publicKey.publicFields]]), as: UTF8.self)
        return try await TestBroker.make(files: files, environment: ["TEST_IAT": iat, "CSI_JWKS": jwks], clock: clock, backend: backend)
    }

    static func statement(key: SigningKey = statementKey, exp: Date, claims: [String: Any] = [:]) throws -> String {
        var payload: [String: Any] = ["iss": "https://vendor.example.com", "software_id": "CSI", "exp": Int(exp.timeIntervalSince1970),
                                      "redirect_uris": [TestBroker.nativeRedirect], "scope": "openid native",
                                      "grant_types": ["authorization_code", "refresh_token", "client_credentials"]]
        payload.merge(claims) { $1 }
        return try CompactJWS.sign(payload: try JSONSerialization.data(withJSONObject: payload), type: "JWT", key: key)
    }

    static func body(_ statement: String, deviceType: String = "iphone", softwareId: String = "CSI") throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [
            "software_id": softwareId, "software_statement": statement, "device_type": deviceType,
            "redirect_uris": [TestBroker.nativeRedirect]]), as: UTF8.self)
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    static func register(_ client: any TestClientProtocol, body: String, token: String = iat) async throws -> TestResponse {
        try await client.postRaw("/oauth/register", body: body, contentType: "application/json", headers: bearer(token))
    }

    @Test("a good initial access token and statement register an instance (RFC 7591 answer)")
    func registers() async throws {
        let broker = try await Self.make()
        try await broker.withClient { client in
            let answer = try await Self.register(client, body: try Self.body(try Self.statement(exp: broker.clock.now() + 600)))
            #expect(answer.status == .created)
            let json = answer.json
            let clientId = try #require(json["client_id"] as? String)
            #expect(clientId.hasPrefix("dyn~CSI~"))
            #expect((json["client_secret"] as? String)?.count ?? 0 >= 43)
            #expect((json["registration_access_token"] as? String)?.count ?? 0 >= 43)
            #expect(json["registration_client_uri"] as? String == "http://127.0.0.1:8080/oauth/register/\(clientId)")
            #expect(json["client_secret_expires_at"] as? Int == 0)
            #expect(json["token_endpoint_auth_method"] as? String == "client_secret_basic")
            #expect(json["redirect_uris"] as? [String] == [TestBroker.nativeRedirect])
            #expect(json["grant_types"] as? [String] == ["authorization_code", "refresh_token", "client_credentials"])
            #expect(json["response_types"] as? [String] == ["code"])
            #expect(json["scope"] as? String == "openid native")
            #expect(json["device_type"] as? String == "iphone")
            // Nothing secret at rest: storage holds only hashes.
            let stored = try #require(try await broker.engine.storage.registeredClients.registeredClient(id: clientId))
            #expect(stored.secretHash == Secrets.hash(json["client_secret"] as! String))
            #expect(stored.appKey == TestBroker.appKey)
            for suffix in ["", "-wal"] {
                guard let raw = FileManager.default.contents(atPath: broker.databasePath + suffix) else { continue }
                #expect(raw.range(of: Data((json["client_secret"] as! String).utf8)) == nil)
                #expect(raw.range(of: Data((json["registration_access_token"] as! String).utf8)) == nil)
            }
        }
    }

    @Test("missing or wrong initial access token → 401 invalid_token; nothing stored")
    func badInitialAccessToken() async throws {
        let broker = try await Self.make()
        try await broker.withClient { client in
            let body = try Self.body(try Self.statement(exp: broker.clock.now() + 600))
            for token in ["wrong-token", Self.iat + "x"] {
                let answer = try await Self.register(client, body: body, token: token)
                #expect(answer.status == .unauthorized)
                #expect(answer.json["error"] as? String == "invalid_token")
            }
            let none = try await client.postRaw("/oauth/register", body: body, contentType: "application/json")
            #expect(none.status == .unauthorized)
            #expect(try await broker.engine.storage.registeredClients.registeredClients(appKey: TestBroker.appKey).isEmpty)
        }
    }

    @Test("bad, foreign-signed, expired, alg none statements and unknown device_type or software_id are refused")
    func badStatements() async throws {
        let broker = try await Self.make()
        try await broker.withClient { client in
            let now = broker.clock.now()
            let good = try Self.statement(exp: now + 600)
            let unsignedHeader = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
            let cases: [(String, String)] = [
                (try Self.body("not-a-jwt"), "invalid_software_statement"),
                (try Self.body(try Self.statement(key: Self.otherKey, exp: now + 600)), "invalid_software_statement"),
                // Expired beyond the minute of clock skew every JWT time claim is given.
                (try Self.body(try Self.statement(exp: now - 61)), "invalid_software_statement"),
                (try Self.body(try Self.statement(exp: now + 600, claims: ["iss": ""])), "invalid_software_statement"),
                (try Self.body(try Self.statement(exp: now + 600, claims: ["software_id": "OTHER"])), "invalid_software_statement"),
                (try Self.body(unsignedHeader + "." + good.split(separator: ".")[1] + "."), "invalid_software_statement"),
                (try Self.body(good, deviceType: "toaster"), "invalid_client_metadata"),
                (try Self.body(good, softwareId: "UNKNOWN"), "unapproved_software_statement"),
                ("[1,2]", "invalid_client_metadata"),
                (#"{"software_id":"CSI","device_type":"iphone"}"#, "invalid_client_metadata"),
                (#"{"software_id":"CSI","device_type":"iphone","redirect_uris":["https://evil.example/cb"],"software_statement":"\#(good)"}"#,
                 "invalid_redirect_uri"),
            ]
            for (body, error) in cases {
                let answer = try await Self.register(client, body: body)
                #expect(answer.status == .badRequest, "\(error)")
                #expect(answer.json["error"] as? String == error)
            }
            #expect(try await broker.engine.storage.registeredClients.registeredClients(appKey: TestBroker.appKey).isEmpty)
        }
    }

    @Test("RFC 7592: GET, PUT and DELETE need the registration access token; DELETE removes the instance")
    func management() async throws {
        let broker = try await Self.make()
        try await broker.withClient { client in
            let json = try await Self.register(client, body: try Self.body(try Self.statement(exp: broker.clock.now() + 600))).json
            let uri = try #require(json["registration_client_uri"] as? String).replacingOccurrences(of: "http://127.0.0.1:8080", with: "")
            let first = try #require(json["registration_access_token"] as? String)
            let read = try await client.get(uri, headers: Self.bearer(first))
            #expect(read.status == .ok)
            #expect(read.json["client_id"] as? String == json["client_id"] as? String)
            #expect(read.json["client_secret"] == nil)
            // RFC 7592 §3: every answer carries the registration access token; a new one, which
            // replaces the one presented.
            let token = try #require(read.json["registration_access_token"] as? String)
            #expect(token != first)
            #expect(try await client.get(uri, headers: Self.bearer(first)).status == .unauthorized)
            #expect(try await client.get(uri, headers: Self.bearer("wrong")).status == .unauthorized)
            #expect(try await client.get(uri).status == .unauthorized)
            func put(_ body: String, _ token: String) async throws -> TestResponse {
                try await client.execute(uri: uri, method: .put, headers: Self.bearer(token).merging([.contentType: "application/json"]),
                                         body: ByteBuffer(string: body))
            }
            for refused in [#"{"registration_access_token":"x"}"#, #"{"client_secret":"not-the-secret"}"#, #"{"client_id":"dyn~CSI~other"}"#] {
                let answer = try await put(refused, token)
                #expect(answer.status == .badRequest && answer.json["error"] as? String == "invalid_client_metadata")
            }
            let secret = try #require(json["client_secret"] as? String)
            let updated = try await put(#"{"device_type":"ipad","client_secret":"\#(secret)"}"#, token)
            #expect(updated.status == .ok)
            #expect(updated.json["device_type"] as? String == "ipad")
            #expect(updated.json["redirect_uris"] as? [String] == [TestBroker.nativeRedirect])
            let latest = try #require(updated.json["registration_access_token"] as? String)
            #expect(try await put(#"{"device_type":"android"}"#, token).status == .unauthorized)
            #expect(try await client.execute(uri: uri, method: .delete, headers: Self.bearer("wrong")).status == .unauthorized)
            #expect(try await client.execute(uri: uri, method: .delete, headers: Self.bearer(latest)).status == .noContent)
            #expect(try await client.get(uri, headers: Self.bearer(latest)).status == .unauthorized)
            #expect(try await broker.engine.storage.registeredClients.registeredClient(id: json["client_id"] as! String) == nil)
        }
    }

    @Test("an instance not signed in to within an hour cannot be bound, even before maintenance removes it")
    func lateFirstSignIn() async throws {
        let clock = ManualClock()
        let broker = try await Self.make(clock: clock)
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            clock.advance(3601)
            let answer = try await InstanceFlows.browserSignIn(client, clientId: instance.clientId)
            let location = try #require(answer.location)
            #expect(queryItems(location)["error"] == "access_denied")
            #expect(try await broker.engine.storage.registeredClients.registeredClient(id: instance.clientId)?.boundSubject == nil)
        }
    }

    @Test("software statements: a configured issuer must match exactly; nbf in the future is refused")
    func statementIssuer() async throws {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"]! += """

            registration:
              initialAccessTokens: [ ${env:TEST_IAT} ]
              softwareStatements: { CSI: { jwks: ${env:CSI_JWKS}, issuer: "https://vendor.example.com" } }
        """
        let jwks = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [Self.statementKey.publicKey.publicFields]]), as: UTF8.self)
        let broker = try await TestBroker.make(files: files, environment: ["TEST_IAT": Self.iat, "CSI_JWKS": jwks])
        try await broker.withClient { client in
            let exp = broker.clock.now() + 600
            let good = try await Self.register(client, body: try Self.body(try Self.statement(exp: exp)))
            #expect(good.status == .created)
            for claims: [String: Any] in [["iss": "https://vendor.example.com.evil"], ["iss": "https://VENDOR.example.com"],
                                          ["nbf": Int(broker.clock.now().timeIntervalSince1970) + 3600], ["nbf": "soon"]] {
                let refused = try await Self.register(client, body: try Self.body(try Self.statement(exp: exp, claims: claims)))
                #expect(refused.status == .badRequest && refused.json["error"] as? String == "invalid_software_statement")
            }
        }
    }

    @Test("an instance nobody signed in to is removed by maintenance one hour after registration (injected clock)")
    func cleanup() async throws {
        let clock = ManualClock()
        let broker = try await Self.make(clock: clock)
        try await broker.withClient { client in
            let clientId = try await Self.register(client, body: try Self.body(try Self.statement(exp: clock.now() + 7200))).json["client_id"] as! String
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let maintenance = MaintenanceService(engine: broker.engine, interval: .seconds(60), logger: logger)
            clock.advance(3500)
            await maintenance.runOnce()
            #expect(try await broker.engine.storage.registeredClients.registeredClient(id: clientId) != nil)
            clock.advance(200)
            await maintenance.runOnce()
            #expect(try await broker.engine.storage.registeredClients.registeredClient(id: clientId) == nil)
        }
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var result = self
        for field in other { result.append(field) }
        return result
    }
}
