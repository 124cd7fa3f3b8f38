import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// Every page has a way forward (docs/protocol.md, "Pages"): after a wrong password the form
/// keeps the username and puts focus on the password, a browser that asks for a page that does
/// not exist gets a page, and a sign-out that fails says so (not "Sign-in problem").
@Suite("Pages: a way forward")
struct WayForwardPageTests {
    @Test("after a wrong password the username stays, focus goes to the password, which the error describes")
    func retryKeepsUsername() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let page = try await Flows.loginPage(client)
            #expect(page.text.contains(#"autocapitalize="none" required autofocus>"#), "a fresh form starts at the username")
            let form = try #require(LoginFormFields(html: page.text))
            let cookie = try #require(page.cookies["idc_csrf"])
            let wrong = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "nope")],
                                                  headers: [.cookie: "idc_csrf=\(cookie)"])
            let retry = try await client.get(pathOf(try #require(wrong.location)), headers: [.cookie: "idc_csrf=\(cookie)"])
            #expect(retry.text.contains(#"id="username" name="username" value="alice""#))
            #expect(retry.text.contains(#"autocomplete="current-password" required autofocus aria-invalid="true" aria-describedby="error">"#))
            #expect(!retry.text.contains(#"autocapitalize="none" required autofocus>"#), "only one field has the focus")
            #expect(retry.text.contains(#"role="alert" id="error""#))
        }
    }

    @Test("an unknown path: a page for a browser (404, text/html), JSON for everyone else")
    func unknownPath() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let browser = try await client.get("/oauth/nothing-here", headers: [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"])
            #expect(browser.status == .notFound)
            #expect(browser.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(browser.text.contains("<h1>Page not found</h1>") && browser.text.contains("There is no page at this address."))
            #expect(browser.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            for headers: HTTPFields in [[:], [.accept: "application/json"]] {
                let api = try await client.get("/oauth/nothing-here", headers: headers)
                #expect(api.status == .notFound && api.json["error"] as? String == "invalid_request", "\(api.text)")
            }
            let posted = try await client.postForm("/oauth/nothing-here", [("a", "b")], headers: [.accept: "text/html"])
            #expect(posted.status == .notFound && posted.json["error"] as? String == "invalid_request", "a form post is not navigation")
        }
    }

    @Test("an authorization that cannot go back to its redirect URI: the page links to the app's registered origin, never to what was sent")
    func errorPageLeadsBack() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let wrong = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", TestBroker.appKey), ("redirect_uri", "https://evil.example/cb"), ("response_type", "code")]))
            #expect(wrong.status == .badRequest && wrong.text.contains("<h1>Sign-in problem</h1>"))
            #expect(wrong.text.contains(#"<a class="button secondary" id="back" href="https://app.example.com/">Back to the app</a>"#))
            #expect(!wrong.text.contains("evil.example/"), "the unregistered URI is not offered as a link")
            let unknown = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", "kid_nobody"), ("redirect_uri", "https://evil.example/cb"), ("response_type", "code")]))
            #expect(unknown.status == .badRequest && !unknown.text.contains(#"id="back""#), "no client, no way back to offer")
        }
    }

    @Test("sign-out: the confirmation names the app; a failed sign-out is a sign-out problem")
    func signOutPages() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let confirm = try await client.get("/oauth/logout?" + formEncode([("client_id", TestBroker.appKey)]))
            #expect(confirm.status == .ok && confirm.text.contains("<h1>Sign out of Test users?</h1>"), "\(confirm.text)")
            let anonymous = try await client.get("/oauth/logout")
            #expect(anonymous.text.contains("<h1>Sign out?</h1>"))
            let refused = try await client.get("/oauth/logout?" + formEncode([
                ("client_id", TestBroker.appKey), ("post_logout_redirect_uri", "https://evil.example/")]))
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("<h1>Sign-out problem</h1>") && !refused.text.contains("Sign-in problem"))
            #expect(refused.text.contains("You may still be signed in."))
        }
    }
}
