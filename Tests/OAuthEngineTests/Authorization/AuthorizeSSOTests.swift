import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `AuthorizeEndpoint` with what the browser already has (docs/protocol.md, "SSO"): an SSO
/// session signs in without the form, `prompt=login` and `max_age` ask again, `prompt=none`
/// never shows a page, a planted app-to-web value signs nobody in.
@Suite("AuthorizeEndpoint: SSO")
struct AuthorizeSSOTests {
    /// A browser signed in as alice at `kid_test`.
    static func signedIn(_ fixture: EngineFixture) async throws -> BrowserContext {
        var browser = BrowserContext()
        _ = try await fixture.signedIn(browser: &browser)
        return browser
    }

    static func code(_ outcome: AuthorizeOutcome) -> String? {
        guard case .redirect(let location, _) = outcome else { return nil }
        return EngineFixture.query(location)["code"]
    }

    @Test("an SSO session signs the same auth service in without the form, prompt=none included; the code redeems")
    func reuse() async throws {
        let fixture = try await EngineFixture()
        var browser = try await Self.signedIn(fixture)
        let silent = try await fixture.authorize(EngineFixture.authorizationPairs() + [("prompt", "none")], browser: &browser)
        let code = try #require(Self.code(silent))
        #expect(try await fixture.exchange(code).id_token != nil)
        // Another auth service of the same app is another sign-in.
        let other = try await fixture.authorize(EngineFixture.authorizationPairs(clientId: "\(EngineFixture.appKey).opaque"), browser: &browser)
        guard case .loginForm = other else { throw UnexpectedOutcome("\(other)") }
    }

    @Test("prompt=login and max_age=0 show the form; max_age older than the sign-in shows it, younger does not")
    func askingAgain() async throws {
        let fixture = try await EngineFixture()
        var browser = try await Self.signedIn(fixture)
        for extra in [[("prompt", "login")], [("max_age", "0")]] {
            let outcome = try await fixture.authorize(EngineFixture.authorizationPairs() + extra, browser: &browser)
            guard case .loginForm = outcome else { throw UnexpectedOutcome("\(extra): \(outcome)") }
        }
        fixture.clock.advance(120)
        #expect(Self.code(try await fixture.authorize(EngineFixture.authorizationPairs() + [("max_age", "300")], browser: &browser)) != nil)
        let stale = try await fixture.authorize(EngineFixture.authorizationPairs() + [("max_age", "60"), ("prompt", "none")], browser: &browser)
        guard case .redirect(let location, _) = stale else { throw UnexpectedOutcome("\(stale)") }
        #expect(EngineFixture.query(location)["error"] == "login_required")
    }

    @Test("max_age puts auth_time in the ID token")
    func authTime() async throws {
        let fixture = try await EngineFixture()
        var browser = try await Self.signedIn(fixture)
        let signedInAt = fixture.clock.now().epochSeconds
        fixture.clock.advance(30)
        let code = try #require(Self.code(try await fixture.authorize(EngineFixture.authorizationPairs() + [("max_age", "300")],
                                                                       browser: &browser)))
        #expect(EngineFixture.claims(try await fixture.exchange(code).id_token)["auth_time"] == .int(signedInAt))
    }

    @Test("prompt=select_account lists the browser's accounts; each link names one with login_hint")
    func accountChooser() async throws {
        let fixture = try await EngineFixture()
        var browser = try await Self.signedIn(fixture)
        _ = try await fixture.signedIn(EngineFixture.authorizationPairs() + [("prompt", "login")], username: "bob", password: "bobpw",
                                       browser: &browser)
        let outcome = try await fixture.authorize(EngineFixture.authorizationPairs() + [("prompt", "select_account")], browser: &browser)
        guard case .accountChooser(let chooser) = outcome else { throw UnexpectedOutcome("\(outcome)") }
        #expect(Set(chooser.accounts.map(\.detail)) == ["alice", "bob"])
        #expect(chooser.accounts.allSatisfy { EngineFixture.query($0.link)["login_hint"] == $0.detail })
        #expect(EngineFixture.query(chooser.anotherAccount)["prompt"] == "login")
    }

    @Test("an unknown app-to-web value is spent and signs nobody in")
    func plantedWebSSO() async throws {
        let fixture = try await EngineFixture()
        let result = await fixture.engine.authorize.authorize(try EngineFixture.parameters(EngineFixture.authorizationPairs()),
                                                              browser: BrowserContext(webSSOValue: Secrets.randomToken()))
        #expect(result.clearWebSSO)
        guard case .loginForm = result.outcome else { throw UnexpectedOutcome("an unknown css value signed someone in") }
    }
}
