import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `QRLoginBrowser` (docs/qr-login.md): the code the login page shows is bound to the browser
/// showing it; once the app confirms, that browser — and only it — finishes the sign-in as the
/// app's user; a refusal or expiry is said to it.
@Suite("QRLoginBrowser")
struct QRLoginBrowserTests {
    @Test("the code encodes {qrUrl}?code=…; once confirmed, the showing browser signs in as the app's user with a fresh SSO cookie")
    func confirmedSignsIn() async throws {
        let fixture = try await QRShowing.fixture()
        var showing = try await QRShowing(fixture)
        #expect(showing.display.payload == "\(EngineFixture.issuer)/oauth/qr?code=\(showing.code)")
        #expect(await fixture.engine.qrBrowser.state(code: showing.code, browserBinding: showing.browser.binding, wait: .zero) == .pending)
        try await fixture.engine.qrAPI.confirm(code: showing.code, bearer: try await QRShowing.appToken(fixture), clientAddress: nil)
        #expect(await fixture.engine.qrBrowser.state(code: showing.code, browserBinding: showing.browser.binding) == .confirmed)
        let finish = try await fixture.engine.qrBrowser.finish(code: showing.code, browser: showing.browser)
        guard case .finished(.signedIn(let completion)) = finish else { throw UnexpectedOutcome("\(finish)") }
        #expect(completion.session.userId == "bob" && completion.sso != nil)
        showing.browser.ssoToken = completion.sso?.value
        let tokens = try await fixture.exchange(try #require(EngineFixture.query(completion.redirect)["code"]))
        #expect(EngineFixture.claims(tokens.id_token)["sub"] == EngineFixture.claims(try await fixture.passwordGrant(
            username: "bob", password: "bobpw").id_token)["sub"])
    }

    @Test("another browser knowing the code learns nothing and finishes nothing")
    func boundToTheShowingBrowser() async throws {
        let fixture = try await QRShowing.fixture()
        let showing = try await QRShowing(fixture)
        try await fixture.engine.qrAPI.confirm(code: showing.code, bearer: try await QRShowing.appToken(fixture), clientAddress: nil)
        let other = BrowserContext(binding: Secrets.randomToken())
        #expect(await fixture.engine.qrBrowser.state(code: showing.code, browserBinding: other.binding, wait: .zero) == .unknown)
        await #expect(throws: AuthorizationFailure.self) { try await fixture.engine.qrBrowser.finish(code: showing.code, browser: other) }
        await #expect(throws: AuthorizationFailure.self) {
            try await fixture.engine.qrBrowser.finish(code: showing.code, browser: BrowserContext())
        }
    }

    @Test("a refusal ends in an error page whose way back is access_denied to the client")
    func refused() async throws {
        let fixture = try await QRShowing.fixture()
        let showing = try await QRShowing(fixture)
        try await fixture.engine.qrAPI.refuse(code: showing.code, bearer: try await QRShowing.appToken(fixture),
                                              body: ["cause_id": .string("unauthorized")], clientAddress: nil)
        let finish = try await fixture.engine.qrBrowser.finish(code: showing.code, browser: showing.browser)
        guard case .refused(let back) = finish else { throw UnexpectedOutcome("\(finish)") }
        #expect(EngineFixture.query(back)["error"] == "access_denied" && EngineFixture.query(back)["state"] == "st")
    }

    @Test("after its ttl the code is expired; the browser gets a fresh one for the same sign-in")
    func expiresAndRestarts() async throws {
        let fixture = try await QRShowing.fixture()
        let showing = try await QRShowing(fixture)
        fixture.clock.advance(60)
        #expect(await fixture.engine.qrBrowser.state(code: showing.code, browserBinding: showing.browser.binding) == .expired)
        guard case .expired = try await fixture.engine.qrBrowser.finish(code: showing.code, browser: showing.browser) else {
            throw UnexpectedOutcome("an expired code was not said to be expired")
        }
        let fresh = try await fixture.engine.qrBrowser.restart(code: showing.code, browserBinding: showing.browser.binding,
                                                               userAgent: nil, acceptLanguage: nil, clientAddress: nil)
        #expect(fresh.code != showing.code && fresh.expiresAt == fixture.clock.now().addingTimeInterval(60))
        try await fixture.engine.qrAPI.confirm(code: fresh.code, bearer: try await QRShowing.appToken(fixture), clientAddress: nil)
        guard case .finished = try await fixture.engine.qrBrowser.finish(code: fresh.code, browser: showing.browser) else {
            throw UnexpectedOutcome("the fresh code did not sign in")
        }
    }
}
