import Foundation
import JOSE
import HummingbirdTesting
import Testing

/// docs/security.md, rule 5: `validateAuth: required` is satisfied by the environment's
/// `appKey:appSecret` only.
@Suite("Security: validateAuth accepts the environment's credentials only")
struct ValidateAuthSecurityTests {
    @Test("an app instance's own credentials do not satisfy validateAuth: required")
    func instanceCredentialsRefused() async throws {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(
            of: "    defaultAuthService: users", with: "    defaultAuthService: users\n    validateAuth: required") + """

            registration:
              initialAccessTokens: [ ${env:TEST_IAT} ]
              softwareStatements: { CSI: { jwks: ${env:CSI_JWKS} } }
        """
        let jwks = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [RegistrationTests.statementKey.publicKey.publicFields]]),
                          as: UTF8.self)
        let broker = try await TestBroker.make(files: files, environment: ["TEST_IAT": RegistrationTests.iat, "CSI_JWKS": jwks])
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let access = try #require(try await InstanceFlows.signIn(client, instance).json["access_token"] as? String)
            let path = "/oauth/validate?access_token=\(access)"
            let withInstance = try await client.get(path, headers: instance.basic)
            #expect(withInstance.status == .unauthorized)
            #expect(withInstance.json["error"] as? String == "invalid_client")
            #expect(withInstance.json["client_token"] == nil && withInstance.json["id"] == nil)
            #expect(try await client.get(path).status == .unauthorized)
            let withEnvironment = try await client.get(path, headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            #expect(withEnvironment.status == .ok)
            #expect(withEnvironment.json["id"] as? String == "alice")
        }
    }
}
