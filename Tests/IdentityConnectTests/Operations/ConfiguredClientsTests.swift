import Foundation
import IdentityApp
import Testing

@Suite("idconnect clients list: the configured clients")
struct ConfiguredClientsTests {
    @Test("each environment's auth services and its organization's, the default one also under the bare App Key")
    func configuredClients() async throws {
        var files = TestBroker.defaultConfig()
        files["organizations/acme.yaml"] = """
        organizations:
          - id: acme
            authServices:
              - id: shared
                redirectUri: [ "\(TestBroker.redirect)" ]
                provider: { type: static, options: { users: [] } }
              - id: users
                redirectUri: [ "https://org.example.com/cb" ]
                provider: { type: static, options: { users: [] } }
        """
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(
            of: "    defaultAuthService: users", with: "    organization: acme\n    defaultAuthService: users")
        let broker = try await TestBroker.make(files: files)
        let tools = try await OperatorCommandsTests.tools(broker)
        let clients = try tools.configuredClients(appKey: nil)
        let ids = clients.map(\.clientId)
        #expect(ids.first == TestBroker.appKey)
        #expect(Set(ids) == Set([TestBroker.appKey] + ["users", "opaque", "norefresh", "page", "styled", "shared"].map { "\(TestBroker.appKey).\($0)" }))
        let users = try #require(clients.first { $0.clientId == "\(TestBroker.appKey).users" })
        // The environment's own `users` wins over the organization's.
        #expect(users.definedIn == "environment" && users.redirectURIs.contains(TestBroker.redirect))
        #expect(clients.first { $0.authServiceId == "shared" }?.definedIn == "organization acme")
        #expect(clients.allSatisfy { $0.connector == "static" })
        #expect(try tools.configuredClients(appKey: TestBroker.appKey).count == clients.count)
        #expect(throws: OperatorToolError.self) { try tools.configuredClients(appKey: "kid_typo") }
    }
}
