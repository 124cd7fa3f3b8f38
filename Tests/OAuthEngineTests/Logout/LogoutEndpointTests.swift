import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `LogoutEndpoint` (OIDC RP-initiated logout; docs/security.md, rules 7 and 12): a logout ends
/// sessions only in the browser that asks — at once with an ID token of ours for a session its
/// SSO cookie holds, otherwise after a confirmation whose CSRF token is bound to the browser —
/// and goes back only to a registered `post_logout_redirect_uri`.
@Suite("LogoutEndpoint")
struct LogoutEndpointTests {
    /// A browser signed in as alice, and the tokens its code brought.
    static func signedIn(_ fixture: EngineFixture) async throws -> (BrowserContext, TokenResponse) {
        var browser = BrowserContext()
        let completion = try await fixture.signedIn(browser: &browser)
        let tokens = try await fixture.exchange(try #require(EngineFixture.query(completion.redirect)["code"]))
        return (browser, tokens)
    }

    static func logout(_ fixture: EngineFixture, hint: String?, redirect: String? = EngineFixture.redirect, ssoToken: String?,
                       confirmation: (csrfToken: String?, browserBinding: String?)? = nil) async throws -> LogoutOutcome {
        var pairs = [("state", "bye")]
        if let hint { pairs.append(("id_token_hint", hint)) }
        if let redirect { pairs.append(("post_logout_redirect_uri", redirect)) }
        return try await fixture.engine.logout.logout(try EngineFixture.parameters(pairs), ssoToken: ssoToken, confirmation: confirmation)
    }

    /// Whether `browser` still signs in without the form.
    static func stillSignedIn(_ fixture: EngineFixture, _ browser: BrowserContext) async throws -> Bool {
        var copy = browser
        let outcome = try await fixture.authorize(EngineFixture.authorizationPairs() + [("prompt", "none")], browser: &copy)
        guard case .redirect(let location, _) = outcome else { return false }
        return EngineFixture.query(location)["code"] != nil
    }

    @Test("our ID token for a session this browser holds signs out at once, back to the registered URI with state")
    func withHint() async throws {
        let fixture = try await EngineFixture()
        let (browser, tokens) = try await Self.signedIn(fixture)
        let outcome = try await Self.logout(fixture, hint: tokens.id_token, ssoToken: browser.ssoToken)
        #expect(outcome == .redirect(EngineFixture.redirect + "?state=bye"))
        #expect(try await Self.stillSignedIn(fixture, browser) == false)
    }

    @Test("without that browser's SSO cookie, or without a hint, the person is asked first and nothing ends")
    func asksFirst() async throws {
        let fixture = try await EngineFixture()
        let (browser, tokens) = try await Self.signedIn(fixture)
        // Without a hint nothing names the client, so no post_logout_redirect_uri can be checked: none is sent.
        for (hint, sso) in [(tokens.id_token, nil), (nil, browser.ssoToken)] {
            let redirect = hint == nil ? nil : EngineFixture.redirect
            guard case .confirm(let carried, let clientName, let cancel) = try await Self.logout(fixture, hint: hint, redirect: redirect, ssoToken: sso) else {
                throw UnexpectedOutcome("a logout ended a session without asking")
            }
            #expect(carried["id_token_hint"] == hint && carried["state"] == "bye")
            #expect(clientName == (hint == nil ? nil : "Test users"))
            #expect(cancel == (hint == nil ? nil : "https://app.example.com/"), "Cancel leads to the app's web origin")
        }
        #expect(try await Self.stillSignedIn(fixture, browser))
    }

    @Test("the confirmation counts only with the CSRF token of the browser's binding cookie; then this browser is signed out")
    func confirmation() async throws {
        let fixture = try await EngineFixture()
        let (browser, _) = try await Self.signedIn(fixture)
        let binding = try #require(browser.binding)
        #expect(await EngineFixture.errorCode {
            try await Self.logout(fixture, hint: nil, redirect: nil, ssoToken: browser.ssoToken, confirmation: ("forged", binding))
        } == "invalid_request")
        #expect(try await Self.stillSignedIn(fixture, browser))
        let outcome = try await Self.logout(fixture, hint: nil, redirect: nil, ssoToken: browser.ssoToken,
                                            confirmation: (LogoutEndpoint.csrfToken(browserBinding: binding), binding))
        #expect(outcome == .signedOut)
        #expect(try await Self.stillSignedIn(fixture, browser) == false)
    }

    @Test("the hint must be an ID token of ours (an expired one still names the session); the redirect must be registered")
    func hintsAndRedirects() async throws {
        let fixture = try await EngineFixture()
        let (browser, tokens) = try await Self.signedIn(fixture)
        #expect(await EngineFixture.errorCode { try await Self.logout(fixture, hint: tokens.access_token, ssoToken: browser.ssoToken) }
            == "invalid_request")
        #expect(await EngineFixture.errorCode {
            try await Self.logout(fixture, hint: tokens.id_token, redirect: "https://evil.example.com/cb", ssoToken: browser.ssoToken)
        } == "invalid_request")
        fixture.clock.advance(3_600)
        #expect(try await Self.logout(fixture, hint: tokens.id_token, redirect: nil, ssoToken: browser.ssoToken) == .signedOut)
    }
}
