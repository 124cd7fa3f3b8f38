import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityCore
import OneTimePassword
import Testing

/// A data link with `requireMfa` (docs/mfa.md, "Step-up on request"): a token of a password-only
/// sign-in gets the RFC 9470 challenge naming the second-factor class, and nothing reaches the
/// backend; a token of a sign-in with a second factor is forwarded.
@Suite("Step-up at the data-link gateway (RFC 9470)")
struct StepUpGatewayTests {
    @Test("password only: 401 insufficient_user_authentication with acr_values; with a second factor: forwarded")
    func challenge() async throws {
        let dataLog = CallLog()
        try await TestHTTPServer.with(RecordingDataLink.router(log: dataLog)) { dataLink in
            var files = MFAFixture.files()
            files["environments/mfa.yaml", default: ""] += """
                dataLinks:
                  - { name: hr, url: "\(dataLink)/api", requireMfa: true }
                  - { name: open, url: "\(dataLink)/api" }

            """
            let broker = try await TestBroker.make(files: files)
            try await broker.withClient(network: true) { client in
                let plain = try #require(try await MFAFixture.passwordGrant(client, service: "optional", username: "bob", password: "bobpw")
                    .json["access_token"] as? String)
                let refused = try await client.get("/datalink/hr/salaries", headers: [.authorization: "Bearer \(plain)"])
                #expect(refused.status == .unauthorized)
                #expect(refused.json["error"] as? String == "insufficient_user_authentication")
                #expect(refused.headers[.wwwAuthenticate]
                    == #"Bearer error="insufficient_user_authentication", acr_values="urn:idconnect:acr:mfa""#)
                #expect(dataLog.all.isEmpty, "nothing reached the backend")
                #expect(try await client.get("/datalink/open/x", headers: [.authorization: "Bearer \(plain)"]).status == .ok)

                let secret = TOTP.randomSecret()
                try await MFAFixture.enrolTOTP(broker, service: "optional", user: "alice", secret: secret)
                let strong = try #require(try await MFAFixture.passwordGrant(client, service: "optional",
                                                                              otp: broker.engine.totpCode(secret)).json["access_token"] as? String)
                #expect(try await client.get("/datalink/hr/salaries", headers: [.authorization: "Bearer \(strong)"]).status == .ok)
                #expect(dataLog.last?.path == "/api/salaries")
            }
        }
    }
}
