import EngineTesting
import Foundation
import IdentityCore
@testable import OAuthEngine
import Testing

/// `AuthorizeEndpoint` deciding what `/oauth/auth` answers a browser (docs/protocol.md,
/// "GET /oauth/auth"): an error page when the client or redirect URI cannot be trusted, an error
/// back to the client after a trusted redirect URI, the login form bound to the browser, the
/// customer's page.
@Suite("AuthorizeEndpoint")
struct AuthorizeEndpointTests {
    static let valid = EngineFixture.authorizationPairs()

    @Test("an unknown client or an unregistered redirect URI: an error page, never a redirect", arguments: [
        [("redirect_uri", EngineFixture.redirect), ("response_type", "code")],
        [("client_id", "kid_unknown"), ("redirect_uri", EngineFixture.redirect), ("response_type", "code")],
        [("client_id", EngineFixture.appKey), ("response_type", "code")],
        [("client_id", EngineFixture.appKey), ("redirect_uri", "https://evil.example/cb"), ("response_type", "code")],
        [("client_id", EngineFixture.appKey), ("redirect_uri", EngineFixture.redirect + "/"), ("response_type", "code")],
    ])
    func errorPages(pairs: [(String, String)]) async throws {
        var browser = BrowserContext()
        let outcome = try await EngineFixture().authorize(pairs, browser: &browser)
        guard case .errorPage = outcome else {
            Issue.record("expected an error page, got \(outcome)")
            return
        }
        #expect(browser.binding == nil)
    }

    @Test("bad parameters after a trusted redirect URI go back to the client with error and state", arguments: [
        ([("response_type", "token")], "invalid_request"),
        ([("code_challenge_method", "plain")], "invalid_request"),
        ([("prompt", "none")], "login_required"),
        ([("request", "eyJhbGciOiJub25lIn0.e30.")], "request_not_supported"),
        ([("request_uri", "https://rp.example.com/request.jwt")], "request_uri_not_supported"),
    ])
    func redirectedErrors(extra: [(String, String)], expected: String) async throws {
        var browser = BrowserContext()
        let pairs = Self.valid.filter { pair in !extra.contains { $0.0 == pair.0 } } + extra
        let outcome = try await EngineFixture().authorize(pairs, browser: &browser)
        guard case .redirect(let location, let sso) = outcome else {
            Issue.record("expected a redirect, got \(outcome)")
            return
        }
        #expect(location.url.hasPrefix(EngineFixture.redirect + "?"))
        #expect(EngineFixture.query(location)["error"] == expected)
        #expect(EngineFixture.query(location)["state"] == "st")
        #expect(sso == nil)
    }

    @Test("the login form is bound to the browser that asked: its CSRF token fails in another browser")
    func loginForm() async throws {
        let fixture = try await EngineFixture()
        var browser = BrowserContext()
        let form = try await fixture.loginForm(browser: &browser)
        let binding = try #require(browser.binding)
        #expect(form.csrfToken == PendingAuthorizations.formToken(pendingId: EngineFixture.lastPathComponent(form.action),
                                                                  browserBinding: binding))
        // The browser's own binding is kept when it brought one.
        _ = try await fixture.loginForm(browser: &browser)
        #expect(browser.binding == binding)
        var other = BrowserContext()
        _ = try await fixture.loginForm(browser: &other)
        await #expect(throws: AuthorizationFailure.self) { try await fixture.submit(form, browser: &other) }
        #expect(try await fixture.submit(form, browser: &browser).completion?.browserBound == true)
    }

    @Test("a wrong password shows the form again with the reason; the code is the redirect's last parameter")
    func retryThenCode() async throws {
        let fixture = try await EngineFixture()
        var browser = BrowserContext()
        let form = try await fixture.loginForm(browser: &browser)
        guard case .retry(_, let message) = try await fixture.submit(form, password: "wrong", browser: &browser) else {
            throw UnexpectedOutcome("a wrong password did not show the form again")
        }
        #expect(message == "The username or password is incorrect.")
        let completion = try #require(try await fixture.submit(form, browser: &browser).completion)
        #expect(completion.redirect.url.hasPrefix(EngineFixture.redirect + "?state=st&iss=\(EngineFixture.encodedIssuer)&code="))
        #expect(completion.sso != nil)
    }

    @Test("customizedLogin page: the browser goes to the customer's page with the temp login URI; API mode never sets the SSO cookie")
    func customerPage() async throws {
        let fixture = try await EngineFixture()
        var browser = BrowserContext()
        let outcome = try await fixture.authorize(EngineFixture.authorizationPairs(clientId: "\(EngineFixture.appKey).page"), browser: &browser)
        guard case .customPage(let location) = outcome else { throw UnexpectedOutcome("\(outcome)") }
        #expect(location.hasPrefix("https://login.example.com/page?temp_login_uri="))
        let signedIn = try await fixture.automatedSignIn()
        #expect(signedIn.completion?.browserBound == false && signedIn.completion?.sso == nil)
    }
}
