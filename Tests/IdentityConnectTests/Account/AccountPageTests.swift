import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// `GET /account` (docs/account.md): the broker's own sign-in, what the page shows, and how it is served.
@Suite("Account page")
struct AccountPageTests {
    @Test("without a sign-in the page signs the person in through the broker's own flow and comes back; served no-store, not framable")
    func signsInFirst() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient(network: true) { client in
            let browser = MFABrowser(client, userAgent: AccountFixture.chrome)
            let first = try await browser.get(AccountPaths.page(TestBroker.appKey))
            #expect(first.status == .ok)
            #expect(first.text.contains(#"name="password""#), "the login form of the auth service")
            #expect(browser.cookies["idc_account"] != nil, "the flow's sealed cookie")
            let form = try must(LoginFormFields(html: first.text))
            let back = try await browser.post(form.action, [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "alicepw")])
            let callback = try must(back.location)
            #expect(callback.hasPrefix("http://127.0.0.1:8080/account/callback?"), "\(callback)")
            let landed = try await browser.get(callback)
            #expect(landed.status == .seeOther)
            #expect(landed.location == "http://127.0.0.1:8080/account?client_id=kid_test")
            #expect(landed.cookies["idc_sso"] != nil && landed.cookies["idc_account"] == "", "a fresh SSO cookie; the flow cookie cleared")

            let page = try await browser.get(try must(landed.location))
            #expect(page.status == .ok)
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(page.headers[.contentSecurityPolicy]?.contains("form-action 'self'") == true)
            for heading in ["Signed-in browsers", "Apps", "Devices"] { #expect(page.text.contains(">\(heading)</h2>")) }
            let account = AccountPage(html: page.text)
            #expect(!account.hasFactorsSection, "mfa.mode is off for this auth service")
            #expect(page.text.contains(#"<dd id="user-id">alice</dd>"#) && page.text.contains("alice@example.org")
                    && page.text.contains("admins, staff") && page.text.contains("<dd>Alice</dd>"))
            #expect(account.browsers.count == 1)
            #expect(account.browsers.first?.label == "Chrome 120 on macOS 10.15.7")
            #expect(account.browsers.first?.current == true)
            #expect(page.text.contains("From 127.0.0.1"))
            #expect(account.apps.isEmpty, "the account page's own sign-in holds no tokens")
            #expect(page.text.contains(#"<button type="submit" class="inline secondary" aria-label="Sign out Chrome 120 on macOS 10.15.7 (this browser)">"#))

            // The same browser again: straight to the page.
            #expect(try await browser.get(AccountPaths.page(TestBroker.appKey)).text.contains(">Signed-in browsers</h2>"))
        }
    }

    @Test("the callback's code is worth nothing elsewhere: the token endpoint refuses it, another browser or state cannot use it")
    func callbackCode() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient { client in
            let browser = MFABrowser(client)
            let form = try must(LoginFormFields(html: try await browser.get(AccountPaths.page(TestBroker.appKey)).text))
            let callback = try must(try await browser.post(form.action, [("csrf_token", form.csrfToken), ("username", "alice"),
                                                                         ("password", "alicepw")]).location)
            let code = try must(queryItems(callback)["code"])
            // Not at the token endpoint, not even with the app's secret and the right redirect URI.
            let exchanged = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "http://127.0.0.1:8080/account/callback"),
                ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)], headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            #expect(exchanged.status == .badRequest && exchanged.json["error"] as? String == "invalid_grant")
            // Not in another browser (no flow cookie), not with another state.
            let other = MFABrowser(client)
            let elsewhere = try await other.get(callback)
            #expect(elsewhere.status == .badRequest && elsewhere.cookies["idc_sso"] == nil)
            var forged = URLComponents(string: callback)!
            forged.queryItems = [URLQueryItem(name: "state", value: "someone-elses"), URLQueryItem(name: "code", value: code)]
            #expect(try await browser.get(forged.string!).status == .badRequest)
            // The rightful browser still can (nothing was burnt), exactly once.
            #expect(try await browser.get(callback).status == .seeOther)
            #expect(try await browser.get(callback).status == .badRequest, "the flow cookie is spent")
            // The authorization endpoint never accepts the account page's redirect URI from a URL.
            let query = [("client_id", TestBroker.appKey), ("redirect_uri", "http://127.0.0.1:8080/account/callback"), ("response_type", "code")]
            let direct = try await client.get("/oauth/auth?" + formEncode(query))
            #expect(direct.status == .badRequest && direct.location == nil)
        }
    }

    @Test("customizedLogin css: the account page's sign-in and the page itself link the auth service's stylesheet, and only its origin is allowed")
    func stylesheet() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient { client in
            let browser = MFABrowser(client)
            let styled = "\(TestBroker.appKey).styled"
            let signIn = try await browser.get(AccountPaths.page(styled))
            #expect(signIn.text.contains(#"name="password""#))
            let page = try await browser.signInIfAsked(signIn)
            #expect(page.status == .ok && page.text.contains(">Signed-in browsers</h2>"))
            for answer in [signIn, page] {
                #expect(answer.text.contains(#"href="https:&#x2F;&#x2F;cdn.example.com&#x2F;login.css""#)
                        || answer.text.contains(#"href="https://cdn.example.com/login.css""#))
                let policy = answer.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("style-src 'self' 'unsafe-inline' https://cdn.example.com") && policy.contains("frame-ancestors 'none'"),
                        "\(policy)")
                // The stylesheet's own images (a logo) and fonts load too.
                #expect(policy.contains("img-src 'self' data: https://cdn.example.com;") && policy.contains("font-src https://cdn.example.com;"),
                        "\(policy)")
                #expect(!policy.contains("script-src"), "no script on these pages")
            }
        }
    }

    @Test("client_id missing, unknown or an app instance's: an error page, never a sign-in")
    func badClient() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient { client in
            for path in ["/account", "/account?client_id=nope", "/account?client_id=dyn~CSI~0000", "/account?client_id=a&client_id=b"] {
                let answer = try await client.get(path)
                #expect(answer.status == .badRequest, "\(path)")
                #expect(answer.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(answer.cookies["idc_account"] == nil)
            }
            #expect(try await client.execute(uri: "/account?client_id=kid_test", method: .delete).status == .methodNotAllowed)
        }
    }

    @Test("apps: each client with live tokens, whether it has offline access; browsers: each with its address and User-Agent")
    func appsAndBrowsers() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient { client in
            let web = MFABrowser(client, userAgent: AccountFixture.firefox)
            _ = try await AccountFixture.webSignIn(web, extra: [("access_type", "online")])
            _ = try await AccountFixture.appSignIn(client, clientId: "kid_test.users")
            let mine = MFABrowser(client, userAgent: AccountFixture.chrome)
            let page = AccountPage(html: try await mine.openAccount(TestBroker.appKey).text)
            #expect(Set(page.browsers.map(\.label)) == ["Chrome 120 on macOS 10.15.7", "Firefox 128 on Linux"])
            #expect(page.browsers.filter(\.current).map(\.label) == ["Chrome 120 on macOS 10.15.7"])
            #expect(Set(page.apps) == ["kid_test", "kid_test.users"])
            #expect(page.offlineAccess == ["kid_test": "no", "kid_test.users": "yes"], "access_type=online got no refresh token")
            // Bob sees none of it.
            let bob = AccountPage(html: try await MFABrowser(client).openAccount(TestBroker.appKey, username: "bob", password: "bobpw").text)
            #expect(bob.apps.isEmpty && bob.browsers.count == 1 && !bob.html.contains("Firefox"))
        }
    }
}
