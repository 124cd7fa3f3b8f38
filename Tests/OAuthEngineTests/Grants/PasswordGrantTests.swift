import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import OAuthEngine
import OneTimePassword
import Testing

/// `grant_type=password` (docs/protocol.md, "POST /oauth/token"): an authenticated client, the
/// connector's verdict, the login throttle (docs/security.md, rule 6), and `otp` for a user with
/// a second factor (docs/mfa.md, "API mode").
@Suite("PasswordGrant")
struct PasswordGrantTests {
    @Test("the client must authenticate; a wrong password is access_denied; the right one signs in with amr pwd")
    func signsIn() async throws {
        let fixture = try await EngineFixture()
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(basic: nil) } == "invalid_client")
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(password: "wrong") } == "access_denied")
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(username: "mallory") } == "access_denied")
        let tokens = try await fixture.passwordGrant(username: "bob", password: "bobpw")
        #expect(EngineFixture.claims(tokens.id_token)["amr"] == .array([.string("pwd")]))
        #expect(tokens.refresh_token != nil)
    }

    @Test("five failures for one username, however it is spelled, refuse even the right password (429)")
    func throttled() async throws {
        let fixture = try await EngineFixture()
        for spelling in ["alice", "Alice", " ALICE ", "alice", "aLiCe"] {
            #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(username: spelling, password: "wrong") } == "access_denied")
        }
        do {
            _ = try await fixture.passwordGrant()
            Issue.record("not throttled")
        } catch let error as OAuthError {
            #expect(error.status == 429)
        }
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(username: "bob", password: "bobpw") } == nil)
    }

    @Test("with an authenticator app: no otp is mfa_required, a wrong one access_denied, the right one adds otp and mfa, once")
    func secondFactor() async throws {
        let clientId = "\(EngineFixture.appKey).optional"
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: EngineFixture.defaultServices + [
            EngineFixture.service("optional") { $0.mfa = MFASettings(mode: .optional) },
        ])])
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: clientId)
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(clientId: clientId) } == "mfa_required")
        let wrong = fixture.engine.wrongTOTPCode(secret)
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(clientId: clientId, otp: wrong) } == "access_denied")
        let code = fixture.engine.totpCode(secret)
        let tokens = try await fixture.passwordGrant(clientId: clientId, otp: code)
        #expect(EngineFixture.claims(tokens.id_token)["amr"] == .array(["pwd", "otp", "mfa"].map { .string($0) }))
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(clientId: clientId, otp: code) } == "access_denied")
        // bob has no factor: optional asks him for none.
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(clientId: clientId, username: "bob", password: "bobpw") }
            == nil)
    }

    @Test("mfa required and no factor yet: mfa_required, naming the account page where enrolment happens")
    func enrolmentFirst() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: [
            EngineFixture.service("required") { $0.mfa = MFASettings(mode: .required) },
        ])])
        do {
            _ = try await fixture.passwordGrant()
            Issue.record("signed in without a second factor")
        } catch let error as OAuthError {
            #expect(error.code == .mfaRequired)
            #expect(error.errorDescription.contains("\(EngineFixture.issuer)/account"))
        }
    }
}
