import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import StaticConnector
import Testing

/// The account page of an auth service whose users sign in at an identity source (a redirect
/// connector): its own sign-in goes there and comes back through `/oauth/callback` and
/// `/account/callback` (docs/account.md, "Signing in").
@Suite("Account page: sign-in at an identity source")
struct AccountUpstreamTests {
    static func make() async throws -> TestBroker {
        try await TestBroker.make(files: UpstreamFlowTests.files, registry: .init([StaticConnectorFactory(), ScriptedRedirectFactory()]))
    }

    /// Opens the page of `kid_up` in `browser`: the redirect to the identity source, and its state.
    static func start(_ browser: MFABrowser) async throws -> String {
        let first = try await browser.get(AccountPaths.page("kid_up"))
        #expect(first.status == .found && browser.cookies["idc_account"] != nil)
        let location = try must(first.location)
        #expect(location.hasPrefix("https://idp.example.com/authorize?state="))
        return try must(queryItems(location)["state"])
    }

    @Test("the identity source signs the person in; back at the page as that user, with a fresh SSO cookie")
    func signsInUpstream() async throws {
        let broker = try await Self.make()
        try await broker.withClient { client in
            let browser = MFABrowser(client, userAgent: AccountFixture.firefox)
            let relay = try await Self.start(browser)
            let back = try await browser.get("/oauth/callback?" + formEncode([("state", relay), ("user", "carol")]))
            let callback = try must(back.location)
            #expect(callback.hasPrefix("http://127.0.0.1:8080/account/callback?"), "\(callback)")
            let landed = try await browser.get(callback)
            #expect(landed.status == .seeOther && landed.location == "http://127.0.0.1:8080/account?client_id=kid_up")
            #expect(browser.cookies["idc_sso"] != nil && browser.cookies["idc_account"] == nil)
            let page = AccountPage(html: try await browser.get(try must(landed.location)).text)
            #expect(page.html.contains(#"<dd id="user-id">carol</dd>"#) && page.html.contains("u@example.org"))
            #expect(page.browsers.map(\.label) == ["Firefox 128 on Linux"] && page.browsers.first?.current == true)
            #expect(page.apps.isEmpty, "the account page's own sign-in holds no tokens")
        }
    }

    @Test("a refusal at the identity source: the page says so and nobody is signed in; another browser's callback changes nothing")
    func refusedUpstream() async throws {
        let broker = try await Self.make()
        try await broker.withClient { client in
            let browser = MFABrowser(client)
            let relay = try await Self.start(browser)
            let back = try await browser.get("/oauth/callback?" + formEncode([("state", relay), ("outcome", "deny")]))
            let callback = try must(back.location)
            #expect(queryItems(callback)["error"] == "access_denied")
            // The same link in a browser that did not start the sign-in: refused, its cookies untouched.
            let other = MFABrowser(client)
            let elsewhere = try await other.get(callback)
            #expect(elsewhere.status == .badRequest && other.cookies["idc_sso"] == nil)
            let refused = try await browser.get(callback)
            #expect(refused.status == .badRequest && refused.text.contains("The identity provider refused the sign-in."))
            #expect(browser.cookies["idc_sso"] == nil && browser.cookies["idc_account"] == nil, "no sign-in; the flow is over")
            #expect(try await browser.get(AccountPaths.page("kid_up")).status == .found, "the page asks for a sign-in again")
        }
    }
}
