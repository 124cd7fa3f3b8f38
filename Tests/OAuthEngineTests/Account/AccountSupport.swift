import EngineTesting
import Foundation
import OAuthEngine

/// A browser that holds an SSO cookie for alice, and the account page as it sees it.
struct AccountBrowser {
    static let userAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

    let fixture: EngineFixture
    var browser = BrowserContext(clientAddress: "192.0.2.10", userAgent: AccountBrowser.userAgent)
    let clientId: String

    /// Signs alice in at `clientId` (the hosted login page).
    static func signedIn(_ fixture: EngineFixture, clientId: String = EngineFixture.appKey) async throws -> AccountBrowser {
        var account = AccountBrowser(fixture: fixture, clientId: clientId)
        _ = try await fixture.signedIn(EngineFixture.authorizationPairs(clientId: clientId), browser: &account.browser)
        return account
    }

    var request: AccountRequest {
        AccountRequest(clientId: clientId, ssoToken: browser.ssoToken, binding: browser.binding, clientAddress: browser.clientAddress,
                       userAgent: browser.userAgent)
    }

    func show() async -> AccountResult { await fixture.engine.account.show(request, notice: nil, codes: nil) }

    /// The page `show` answers, or a failure naming what came instead.
    func page() async throws -> AccountPageModel { try Self.page(await show()) }

    static func page(_ result: AccountResult) throws -> AccountPageModel {
        guard case .page(let model, _) = result.outcome else { throw UnexpectedOutcome("expected the account page, got \(result.outcome)") }
        return model
    }

    /// A form post's fields with the page's CSRF token.
    func form(_ fields: [(String, String)]) async throws -> OAuthParameters {
        try EngineFixture.parameters([("csrf_token", try await page().csrfToken)] + fields)
    }
}
