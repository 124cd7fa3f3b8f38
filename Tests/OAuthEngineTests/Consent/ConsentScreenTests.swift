import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import OAuthEngine
import PageLanguages
import StoreContracts
import Testing

/// The consent screen (docs/consent.md) through the engine, on `MemoryStore` with a manual clock:
/// what it shows, Allow with scopes unticked, Deny, remembered and required consent, `prompt`.
@Suite("Consent screen")
struct ConsentScreenTests {
    @Test("the page names the app, the account and each scope in words; openid cannot be unticked")
    func page() async throws {
        let consent = try await ConsentFixture()
        var browser = BrowserContext()
        let page = try await consent.consentPage(scope: "openid profile email", browser: &browser)
        #expect(page.hasPrefix("\(EngineFixture.issuer)/oauth/consent/"))
        #expect(browser.ssoToken == nil, "nobody is signed in before the user decides")
        let model = try await consent.show(page, browser: browser)
        #expect(model.appName == "Expense Reports" && model.serviceName == "Test users" && model.account == "Alice")
        #expect(model.logo?.absoluteString == "https://app.example.com/logo.png" && model.policy != nil && model.termsOfService == nil)
        #expect(model.scopes.map(\.name) == ["openid", "profile", "email"])
        #expect(model.scopes.map(\.required) == [true, false, false])
        #expect(model.scopes[2].description == PageText(verbatim: "Read your work email address"), "the auth service's own words win, untranslated")
        #expect(model.scopes[1].description == "See your name and profile details")
    }

    @Test("Allow with profile unticked: the code's tokens carry openid and email only, the decision is recorded and audited")
    func partialAllow() async throws {
        let consent = try await ConsentFixture()
        var browser = BrowserContext()
        let page = try await consent.consentPage(scope: "openid profile email", browser: &browser)
        let outcome = try await consent.decide(page, "allow", granted: ["email"], browser: &browser)
        let code = try #require(ConsentFixture.code(outcome))
        #expect(browser.ssoToken != nil, "the approving browser is signed in")
        let tokens = try await consent.fixture.exchange(code)
        #expect(tokens.scope == "openid email")
        let record = try #require(try await consent.fixture.storage.consents.consent(
            subject: EngineFixture.claims(tokens.id_token)["sub"]?.stringValue ?? "", clientId: "\(EngineFixture.appKey).users"))
        #expect(record.scopes == ["email", "openid"])
        let granted = try #require(consent.sink.named(.consentGranted).first)
        #expect(granted.fields["scopes"] == "openid email" && granted.fields["withheld"] == "profile")
        // The page is spent.
        await #expect(throws: AuthorizationFailure.self) { try await consent.show(page, browser: browser) }
    }

    @Test("claims asked for by name are shown as their scopes and withheld with them (regression: they bypassed the screen)")
    func claimsCountAsScopes() async throws {
        let consent = try await ConsentFixture()
        let claims = [("claims", #"{"id_token":{"email":null,"groups":null},"userinfo":{"name":null}}"#)]
        var browser = BrowserContext()
        let page = try await consent.consentPage(scope: "openid", extra: claims, browser: &browser)
        #expect(try await consent.show(page, browser: browser).scopes.map(\.name) == ["openid", "email", "groups", "profile"])
        let code = try #require(ConsentFixture.code(try await consent.decide(page, "allow", granted: ["groups"], browser: &browser)))
        let tokens = try await consent.fixture.exchange(code)
        let idToken = EngineFixture.claims(tokens.id_token)
        #expect(tokens.scope == "openid")
        #expect(idToken["email"] == nil && idToken["groups"] != nil, "email withheld, groups allowed: \(idToken)")
        // Remembered: the same claims again pass without the screen; a withheld one asks again.
        var again = browser
        let allowed = try await consent.fixture.authorize(ConsentFixture.pairs("openid", [("claims", #"{"id_token":{"groups":null}}"#)]),
                                                          browser: &again)
        #expect(ConsentFixture.code(allowed) != nil, "groups was allowed: \(allowed)")
        let withheld = try await consent.fixture.authorize(ConsentFixture.pairs("openid", [("claims", #"{"userinfo":{"email":null}}"#)]),
                                                           browser: &again)
        guard case .consent = withheld else { throw UnexpectedOutcome("email was withheld, so the screen comes back: \(withheld)") }
    }

    @Test("remembered: what was granted goes through without the screen; more scopes, prompt=consent ask again; prompt=none answers consent_required")
    func remembered() async throws {
        let consent = try await ConsentFixture()
        var browser = BrowserContext()
        let page = try await consent.consentPage(scope: "openid email", browser: &browser)
        _ = try #require(ConsentFixture.code(try await consent.decide(page, "allow", granted: ["email"], browser: &browser)))

        let again = try await consent.fixture.authorize(ConsentFixture.pairs("openid email"), browser: &browser)
        #expect(ConsentFixture.code(again) != nil, "granted before: no screen")
        let silent = try await consent.fixture.authorize(ConsentFixture.pairs("openid", [("prompt", "none")]), browser: &browser)
        #expect(ConsentFixture.code(silent) != nil, "a subset needs no screen, prompt=none included")

        let more = try await consent.fixture.authorize(ConsentFixture.pairs("openid email profile"), browser: &browser)
        guard case .consent(let morePage) = more else { throw UnexpectedOutcome("\(more)") }
        let forced = try await consent.fixture.authorize(ConsentFixture.pairs("openid email", [("prompt", "consent")]), browser: &browser)
        guard case .consent = forced else { throw UnexpectedOutcome("prompt=consent: \(forced)") }
        let none = try await consent.fixture.authorize(ConsentFixture.pairs("openid profile", [("prompt", "none")]), browser: &browser)
        guard case .redirect(let answer, _) = none else { throw UnexpectedOutcome("\(none)") }
        #expect(EngineFixture.query(answer)["error"] == "consent_required" && EngineFixture.query(answer)["state"] == "st")

        // Approving from the SSO session: profile now granted too, email kept.
        let code = try #require(ConsentFixture.code(try await consent.decide(morePage, "allow", granted: ["email", "profile"], browser: &browser)))
        #expect(try await consent.fixture.exchange(code).scope == "openid email profile")
    }

    @Test("required: asked at every authorization, even for what was granted")
    func required() async throws {
        let consent = try await ConsentFixture(mode: .required)
        var browser = BrowserContext()
        let page = try await consent.consentPage(scope: "openid", browser: &browser)
        _ = try #require(ConsentFixture.code(try await consent.decide(page, "allow", browser: &browser)))
        let again = try await consent.fixture.authorize(ConsentFixture.pairs("openid"), browser: &browser)
        guard case .consent = again else { throw UnexpectedOutcome("\(again)") }
    }

    @Test("Deny: access_denied with the state, no session, nothing recorded; the page is spent")
    func deny() async throws {
        let consent = try await ConsentFixture()
        var browser = BrowserContext()
        let page = try await consent.consentPage(scope: "openid email", browser: &browser)
        let outcome = try await consent.decide(page, "deny", browser: &browser)
        guard case .redirect(let answer) = outcome else { throw UnexpectedOutcome("\(outcome)") }
        let fields = EngineFixture.query(answer)
        #expect(fields["error"] == "access_denied" && fields["state"] == "st" && fields["code"] == nil)
        #expect(browser.ssoToken == nil)
        #expect(consent.sink.named(.consentDenied).count == 1 && consent.sink.named(.signInSucceeded).isEmpty)
        #expect(await EngineFixture.errorCode { try await consent.decide(page, "allow", browser: &browser, token: "x") } == "invalid_request")
        // The next authorization asks again.
        guard case .loginForm = try await consent.fixture.authorize(ConsentFixture.pairs("openid"), browser: &browser) else {
            throw UnexpectedOutcome("expected the login form")
        }
    }

    @Test("hostile posts: another browser, a wrong or missing CSRF token, no decision, an unknown or oversized id — all refused, nothing issued")
    func hostile() async throws {
        let consent = try await ConsentFixture()
        var browser = BrowserContext()
        let page = try await consent.consentPage(scope: "openid email", browser: &browser)
        let token = try await consent.show(page, browser: browser).csrfToken
        var stranger = BrowserContext(binding: Secrets.randomToken())
        await #expect(throws: AuthorizationFailure.self) { try await consent.show(page, browser: stranger) }
        #expect(await EngineFixture.errorCode { try await consent.decide(page, "allow", browser: &stranger, token: token) } == "invalid_request")
        #expect(await EngineFixture.errorCode { try await consent.decide(page, "allow", browser: &browser, token: "forged") } == "invalid_request")
        #expect(await EngineFixture.errorCode { try await consent.decide(page, "maybe", browser: &browser, token: token) } == "invalid_request")
        for id in ["unknown", String(repeating: "a", count: 500)] {
            let form = try EngineFixture.parameters([("csrf_token", token), ("decision", "allow")])
            #expect(await EngineFixture.errorCode { try await consent.engine.consentScreen.decide(id, browser: browser, form: form) } == "invalid_request")
        }
        // Posting a password to the consent page's id is not a way round it.
        let credentials = try EngineFixture.parameters([("username", TestUser.alice.username), ("password", TestUser.alice.password)])
        #expect(await EngineFixture.errorCode {
            try await consent.engine.passwordSignIn.signIn(pendingId: EngineFixture.lastPathComponent(page), parameters: credentials,
                                                           csrfToken: token, browser: browser)
        } == "invalid_request")
        #expect(consent.sink.named(.consentGranted).isEmpty)
        // The real browser can still decide.
        #expect(ConsentFixture.code(try await consent.decide(page, "allow", browser: &browser, token: token)) != nil)
    }

    @Test("an app's own login (the automated grant) cannot ask: consent_required; first-party services never ask")
    func apiMode() async throws {
        let consent = try await ConsentFixture()
        #expect(await EngineFixture.errorCode { try await consent.fixture.automatedSignIn(scope: "openid") } == "consent_required")
        // `opaque` has no consent settings: straight to a code, prompt=consent too.
        var browser = BrowserContext()
        let pairs = EngineFixture.authorizationPairs(clientId: "\(EngineFixture.appKey).opaque") + [("prompt", "consent")]
        #expect(try await consent.fixture.browserSignIn(pairs, browser: &browser).completion != nil)
    }
}
