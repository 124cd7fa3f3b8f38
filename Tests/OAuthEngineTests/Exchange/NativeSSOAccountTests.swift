import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// The account page's view of native SSO (docs/native-sso.md, "Ending it"; docs/account.md): a
/// device's sign-in shared by its apps is one row naming them, and ending it ends them all.
@Suite("Native SSO on the account page")
struct NativeSSOAccountTests {
    @Test("one row for the apps sharing a device's sign-in; signing it out ends every app's tokens and the device secret")
    func sharedSignIn() async throws {
        let fixture = try await NativeSSOTests.fixture()
        let account = try await AccountBrowser.signedIn(fixture, clientId: NativeSSOTests.first)
        let mail = try await fixture.passwordGrant(clientId: NativeSSOTests.first, scope: "openid device_sso")
        fixture.clock.advance(30)
        let calendar = try await NativeSSOTests.share(fixture, idToken: mail.id_token, secret: mail.device_secret)
        _ = try await fixture.passwordGrant(clientId: NativeSSOTests.first, scope: "openid")
        let page = try await account.page()
        #expect(page.sharedSignIns.map(\.apps) == [["Test mail", "Test calendar"]])
        let shared = try #require(page.sharedSignIns.first)

        let forged = await fixture.engine.account.sessions.signOutSharedSignIn(account.request, form: try EngineFixture.parameters([
            ("csrf_token", "forged"), ("session", shared.id)]))
        guard case .errorPage = forged.outcome else { throw UnexpectedOutcome("a forged form was obeyed: \(forged)") }
        let browserRow = try #require(page.browsers.first)
        let notShared = await fixture.engine.account.sessions.signOutSharedSignIn(account.request, form: try await account.form([
            ("session", browserRow.id)]))
        guard case .page(_, status: 400) = notShared.outcome else { throw UnexpectedOutcome("a browser's session was ended as shared: \(notShared)") }

        let ended = try AccountBrowser.page(await fixture.engine.account.sessions.signOutSharedSignIn(
            account.request, form: try await account.form([("session", shared.id)])))
        #expect(ended.sharedSignIns.isEmpty && ended.browsers.count == 1)
        #expect(ended.notice?.english.contains("Test mail, Test calendar") == true)
        #expect(await EngineFixture.errorCode { try await fixture.refresh(calendar.refresh_token, clientId: NativeSSOTests.second) }
            == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.engine.validation.validate(accessToken: mail.access_token, basic: nil) }
            == "invalid_token")
        #expect(await EngineFixture.errorCode {
            try await NativeSSOTests.share(fixture, idToken: mail.id_token, secret: mail.device_secret)
        } == "invalid_grant")
        let again = await fixture.engine.account.sessions.signOutSharedSignIn(account.request, form: try await account.form([
            ("session", shared.id)]))
        guard case .page(_, status: 400) = again.outcome else { throw UnexpectedOutcome("\(again)") }
    }

    @Test("a device secret issued to a DPoP-bound app is shared only with a proof of the same key")
    func boundDeviceSecret() async throws {
        let fixture = try await NativeSSOTests.fixture()
        let key = TestDPoPKey()
        let url = EngineFixture.issuer + "/oauth/token"
        let mail = try await fixture.token([("grant_type", "password"), ("client_id", NativeSSOTests.first), ("username", TestUser.alice.username),
                                            ("password", TestUser.alice.password), ("scope", "openid device_sso")],
                                           dpop: [key.proof("POST", url, issuedAt: fixture.clock.now())])
        let pairs = [("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", NativeSSOTests.second),
                     ("subject_token", mail.id_token ?? ""), ("subject_token_type", NativeSSOTests.idType),
                     ("actor_token", mail.device_secret ?? ""), ("actor_token_type", NativeSSOTests.deviceSecretType)]
        #expect(await EngineFixture.errorCode { try await fixture.token(pairs) } == "invalid_grant")
        let thief = TestDPoPKey().proof("POST", url, issuedAt: fixture.clock.now())
        #expect(await EngineFixture.errorCode { try await fixture.token(pairs, dpop: [thief]) } == "invalid_grant")
        let calendar = try await fixture.token(pairs, dpop: [key.proof("POST", url, issuedAt: fixture.clock.now())])
        #expect(calendar.token_type == "DPoP")
    }
}
