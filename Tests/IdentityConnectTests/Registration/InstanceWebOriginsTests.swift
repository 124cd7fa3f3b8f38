import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// RFC 7591 metadata `web_origins` of a registered app instance (docs/protocol.md, "Browser apps
/// (CORS)"): `+` and the exact origins its software statement allows, kept in storage, answered in
/// preflights (which name no client) while the instance exists, and readable only for its own requests.
@Suite("Registration: web_origins of app instances")
struct InstanceWebOriginsTests {
    static let hybrid = "capacitor://localhost"
    static let web = "https://pwa.example.com"
    static func statementClaims() -> [String: Any] {
        ["redirect_uris": [TestBroker.nativeRedirect, "\(web)/callback"], "web_origins": [hybrid, "https://spare.example.com"]]
    }

    static func body(_ statement: String, webOrigins: [String]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [
            "software_id": "CSI", "software_statement": statement, "device_type": "android",
            "redirect_uris": [TestBroker.nativeRedirect, "\(web)/callback"], "web_origins": webOrigins]), as: UTF8.self)
    }

    static func preflight(_ client: any TestClientProtocol, _ origin: String) async throws -> TestResponse {
        try await client.execute(uri: "/oauth/token", method: .options,
                                 headers: [.origin: origin, .accessControlRequestMethod: "POST"])
    }

    @Test("registered with web_origins [capacitor://localhost, +]: stored, answered, preflighted, its own requests readable; gone with the instance",
          arguments: StoreBackend.allCases)
    func registeredOrigins(_ backend: StoreBackend) async throws {
        let broker = try await RegistrationTests.make(backend: backend)
        try await broker.withClient { client in
            #expect(try await Self.preflight(client, Self.hybrid).status == .methodNotAllowed)
            let statement = try RegistrationTests.statement(exp: broker.clock.now() + 600, claims: Self.statementClaims())
            let answer = try await RegistrationTests.register(client, body: try Self.body(statement, webOrigins: [Self.hybrid, "+"]))
            #expect(answer.status == .created, "\(answer.text)")
            #expect(answer.json["web_origins"] as? [String] == [Self.hybrid, "+"])
            let clientId = try #require(answer.json["client_id"] as? String)
            let stored = try #require(try await broker.engine.storage.registeredClients.registeredClient(id: clientId))
            #expect(stored.webOrigins == [Self.hybrid, "+"] && stored.allowedWebOrigins == [Self.hybrid, Self.web])

            for origin in [Self.hybrid, Self.web] {
                let preflight = try await Self.preflight(client, origin)
                #expect(preflight.status == .noContent && preflight.headers[.accessControlAllowOrigin] == origin, "\(origin)")
                // Its own request: readable. The configured client's: not (no auth service lists these).
                let own = try await client.postForm("/oauth/token", [("grant_type", "client_credentials"), ("client_id", clientId)],
                                                    headers: [.origin: origin])
                #expect(own.status == .unauthorized && own.headers[.accessControlAllowOrigin] == origin, "\(origin)")
                let other = try await client.postForm("/oauth/token", [("grant_type", "password"), ("client_id", TestBroker.appKey)],
                                                      headers: [.origin: origin])
                #expect(other.headers[.accessControlAllowOrigin] == nil, "\(origin)")
            }
            // The statement allows spare.example.com, but this instance did not register it.
            #expect(try await Self.preflight(client, "https://spare.example.com").status == .methodNotAllowed)

            let token = try #require(answer.json["registration_access_token"] as? String)
            let path = pathOf(try #require(answer.json["registration_client_uri"] as? String))
            let deleted = try await client.execute(uri: path, method: .delete, headers: RegistrationTests.bearer(token))
            #expect(deleted.status == .noContent)
            #expect(try await Self.preflight(client, Self.hybrid).status == .methodNotAllowed)
        }
    }

    @Test("web_origins outside the statement's, wildcards, paths and non-origins are refused with invalid_client_metadata")
    func refusedOrigins() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let statement = try RegistrationTests.statement(exp: broker.clock.now() + 600, claims: Self.statementClaims())
            for (origins, reason) in [(["https://elsewhere.example.com"], "not an origin the software statement allows"),
                                      (["https://*.example.com"], "wildcards are not supported"),
                                      (["\(Self.web)/app"], "no path"), (["null"], "never allowed"), (["pwa.example.com"], "not an origin")] {
                let answer = try await RegistrationTests.register(client, body: try Self.body(statement, webOrigins: origins))
                #expect(answer.status == .badRequest, "\(origins)")
                #expect(answer.json["error"] as? String == "invalid_client_metadata")
                #expect((answer.json["error_description"] as? String)?.contains(reason) == true, "\(answer.text)")
            }
            #expect(try await broker.engine.storage.registeredClients.registeredClients(appKey: TestBroker.appKey).isEmpty)
        }
    }
}
