import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import StoreContracts
import Testing

/// **Apps you allowed** on the account page (docs/consent.md): listed with what each may do;
/// "Remove access" takes the consent back and ends the app's tokens.
@Suite("Consent on the account page")
struct ConsentAccountTests {
    @Test("listed in words; Remove access ends the app's refresh token and makes it ask again; a second removal is refused")
    func removeAccess() async throws {
        let consent = try await ConsentFixture()
        var browser = BrowserContext(clientAddress: "192.0.2.10", userAgent: AccountBrowser.userAgent)
        let page = try await consent.consentPage(scope: "openid email offline_access", browser: &browser)
        let code = try #require(ConsentFixture.code(try await consent.decide(page, "allow", granted: ["email", "offline_access"],
                                                                             browser: &browser)))
        let tokens = try await consent.fixture.exchange(code)
        #expect(tokens.refresh_token != nil)

        let account = AccountBrowser(fixture: consent.fixture, browser: browser, clientId: EngineFixture.appKey)
        let listed = try await account.page()
        let row = try #require(listed.consents.first)
        #expect(row.clientId == "\(EngineFixture.appKey).users" && row.name == "Expense Reports")
        #expect(row.allowed.map(\.english) == ["Read your work email address", "Stay signed in and act for you while you are away", "Confirm who you are"])

        let result = await consent.engine.account.consents.removeAccess(account.request, form: try await account.form([("client", row.clientId)]))
        let after = try AccountBrowser.page(result)
        #expect(after.notice?.english.contains("Removed the access of Expense Reports") == true && after.consents.isEmpty)
        #expect(await EngineFixture.errorCode { try await consent.fixture.refresh(tokens.refresh_token) } == "invalid_grant")
        #expect(consent.sink.named(.consentRevoked).first?.fields["by"] == "user")
        var again = browser
        guard case .consent = try await consent.fixture.authorize(ConsentFixture.pairs("openid email"), browser: &again) else {
            throw UnexpectedOutcome("expected the consent screen again")
        }
        let refused = try AccountBrowser.page(await consent.engine.account.consents.removeAccess(
            account.request, form: try await account.form([("client", row.clientId)])))
        #expect(refused.error != nil)
    }
}
