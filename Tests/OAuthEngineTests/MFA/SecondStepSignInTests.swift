import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import OneTimePassword
import Testing

/// `SecondStepSignIn` with an enrolled authenticator app (docs/mfa.md): the page asks for the
/// code, a wrong one shows it again with the reason, the right one finishes the sign-in with
/// `amr` `otp` and `mfa`, once; only the browser that started the sign-in can answer.
@Suite("SecondStepSignIn")
struct SecondStepSignInTests {
    @Test("a wrong code keeps the page (400, the reason in words); the right one signs in with pwd, otp and mfa")
    func verify() async throws {
        let fixture = try await SecondStep.fixture()
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: SecondStep.required)
        var browser = BrowserContext()
        let (id, page) = try await SecondStep.open(fixture, browser: &browser)
        #expect(page.kind == .verify && page.offersCode)
        let wrong = try await SecondStep.submit(fixture, id, page, otp: fixture.engine.wrongTOTPCode(secret), browser: browser)
        guard case .page(let again, let status) = wrong else { throw UnexpectedOutcome("\(wrong)") }
        #expect(status == 400 && again.error?.english.hasPrefix("The code is not correct.") == true)
        let right = try await SecondStep.submit(fixture, id, again, otp: fixture.engine.totpCode(secret), browser: browser)
        let completion = try SecondStep.completion(right, browser: &browser)
        #expect(completion.sso != nil)
        #expect(try await SecondStep.amr(fixture, completion) == ["pwd", "otp", "mfa"])
    }

    @Test("a code once accepted is refused in the same time step; the next step's code signs in")
    func replay() async throws {
        let fixture = try await SecondStep.fixture()
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: SecondStep.required)
        var first = BrowserContext()
        let (firstId, firstPage) = try await SecondStep.open(fixture, browser: &first)
        let code = fixture.engine.totpCode(secret)
        _ = try SecondStep.completion(try await SecondStep.submit(fixture, firstId, firstPage, otp: code, browser: first), browser: &first)
        var second = BrowserContext()
        let (id, page) = try await SecondStep.open(fixture, browser: &second)
        let replayed = try SecondStep.model(try await SecondStep.submit(fixture, id, page, otp: code, browser: second))
        #expect(replayed.error?.english.contains("used already") == true)
        fixture.clock.advance(30)
        let next = try await SecondStep.submit(fixture, id, replayed, otp: fixture.engine.totpCode(secret), browser: second)
        _ = try SecondStep.completion(next, browser: &second)
    }

    @Test("another browser, or a form token that is not the page's, is refused")
    func boundToTheBrowser() async throws {
        let fixture = try await SecondStep.fixture()
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: SecondStep.required)
        var browser = BrowserContext()
        let (id, page) = try await SecondStep.open(fixture, browser: &browser)
        await #expect(throws: AuthorizationFailure.self) { try await fixture.engine.secondStep.page(id: id, browser: BrowserContext()) }
        let other = BrowserContext(binding: Secrets.randomToken())
        await #expect(throws: AuthorizationFailure.self) {
            try await SecondStep.submit(fixture, id, page, otp: fixture.engine.totpCode(secret), browser: other)
        }
        var forged = page
        forged.csrfToken = "forged"
        await #expect(throws: AuthorizationFailure.self) {
            try await SecondStep.submit(fixture, id, forged, otp: fixture.engine.totpCode(secret), browser: browser)
        }
        fixture.clock.advance(601)
        await #expect(throws: AuthorizationFailure.self) { try await fixture.engine.secondStep.page(id: id, browser: browser) }
    }

    @Test("an SSO session without mfa is stepped up once the user has a factor")
    func stepUp() async throws {
        let fixture = try await SecondStep.fixture()
        var browser = BrowserContext()
        let pairs = EngineFixture.authorizationPairs(clientId: SecondStep.optional)
        _ = try await fixture.signedIn(pairs, browser: &browser)
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: SecondStep.optional)
        let outcome = try await fixture.authorize(pairs, browser: &browser)
        guard case .secondStep(let page) = outcome, page.hasPrefix("\(EngineFixture.issuer)/oauth/mfa/") else {
            throw UnexpectedOutcome("expected the second-step page, got \(outcome)")
        }
        let id = EngineFixture.lastPathComponent(page)
        let model = try SecondStep.model(try await fixture.engine.secondStep.page(id: id, browser: browser))
        let completion = try SecondStep.completion(try await SecondStep.submit(fixture, id, model, otp: fixture.engine.totpCode(secret),
                                                                               browser: browser), browser: &browser)
        #expect(try await SecondStep.amr(fixture, completion, clientId: SecondStep.optional) == ["pwd", "otp", "mfa"])
    }
}
