import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import Logging
import Testing

/// API mode (docs/mfa.md): `otp` on the password grant and the temp login URI; `mfa_required` in
/// words; and `idconnect mfa list|reset` against the running broker — on every backend.
@Suite("MFA: API mode and operators")
struct MFAAPITests {
    @Test("password grant and temp login URI: mfa_required in words, wrong otp access_denied, right otp amr; mfa list and reset",
          arguments: StoreBackend.allCases)
    func apiMode(_ backend: StoreBackend) async throws {
        let broker = try await MFAFixture.make(backend: backend)
        try await broker.withClient { client in
            let enrol = try await MFAFixture.passwordGrant(client)
            #expect(enrol.status == .badRequest)
            #expect(enrol.json["error"] as? String == "mfa_required")
            #expect((enrol.json["error_description"] as? String)?.contains("http://localhost:8080/account") == true)

            let secret = Array("abcdefghijabcdefghij".utf8)
            try await MFAFixture.enrolTOTP(broker, service: "required", user: "alice", secret: secret)
            let missing = try await MFAFixture.passwordGrant(client)
            #expect(missing.json["error"] as? String == "mfa_required")
            #expect((missing.json["error_description"] as? String)?.contains("'otp'") == true)
            let wrong = try await MFAFixture.passwordGrant(client, otp: "000000")
            #expect(wrong.status == .badRequest)
            #expect(wrong.json["error"] as? String == "access_denied")
            let right = try await MFAFixture.passwordGrant(client, otp: OneTimePasswordHelper.code(secret, at: broker.clock.now()))
            #expect(right.status == .ok)
            #expect(MFAFixture.claims(try must(right.json["access_token"] as? String))["amr"] as? [String] == ["pwd", "otp", "mfa"])
            let replay = try await MFAFixture.passwordGrant(client, otp: OneTimePasswordHelper.code(secret, at: broker.clock.now()))
            #expect(replay.json["error"] as? String == "access_denied")
            // A wrong password stays a wrong password, whatever the otp.
            #expect(try await MFAFixture.passwordGrant(client, password: "nope", otp: "123456").json["error"] as? String == "access_denied")

            // The temp login URI: a 302 with error=mfa_required, then with otp a code.
            func tempLogin(_ otp: String?) async throws -> String {
                let start = try await client.postForm("/oauth/auth", [("client_id", MFAFixture.appKey), ("redirect_uri", TestBroker.redirect),
                                                                     ("response_type", "code")], headers: basicAuth(MFAFixture.appKey, MFAFixture.secret))
                let uri = try must(start.json["temp_login_uri"] as? String)
                var fields = [("username", "alice"), ("password", "alicepw")]
                if let otp { fields.append(("otp", otp)) }
                let answer = try await client.postForm(pathOf(uri), fields)
                #expect(answer.status == .found)
                return try must(answer.location)
            }
            let required = try await tempLogin(nil)
            #expect(queryItems(required)["error"] == "mfa_required")
            broker.clock.advance(30)
            #expect(queryItems(try await tempLogin(OneTimePasswordHelper.code(secret, at: broker.clock.now())))["code"] != nil)

            // idconnect mfa list / reset while the broker runs.
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let tools = try await OperatorTools.open(configDirectory: broker.configDirectory.path, storage: broker.storage,
                                                     registry: TestBroker.defaultRegistry,
                                                     environment: ["TEST_APP_SECRET": TestBroker.appSecret], clock: broker.clock, logger: logger)
            let listed = try await tools.mfaEnrolments(authService: "required", user: "ALICE")
            #expect(listed.count == 1 && listed.first?.totp != nil)
            await #expect(throws: OperatorToolError.self) { try await tools.mfaEnrolments(authService: "typo", user: nil) }
            let removed = try await tools.resetMFA(authService: "required", user: "alice")
            #expect(removed.count == 1 && removed.first?.1.totp == 1)
            #expect(try await tools.mfaEnrolments(authService: "required", user: "alice").isEmpty)
            #expect(try await MFAFixture.passwordGrant(client).json["error"] as? String == "mfa_required")
            #expect((try await MFAFixture.passwordGrant(client).json["error_description"] as? String)?.contains("set up") == true)
        }
    }
}
