import EngineTesting
import Foundation
import OAuthEngine
import OneTimePassword
import Testing

/// `SecondStepSignIn` for a user without a factor where `mfa.mode` is `required` (docs/mfa.md,
/// "Enrolment"): the page shows a new key, a code from it enrols it, the ten recovery codes are
/// shown once, and each of them then signs in once.
@Suite("SecondStepSignIn: enrolment and recovery codes")
struct SecondStepEnrolmentTests {
    /// Enrols bob's authenticator app through the pages; returns the recovery codes shown.
    static func enrolBob(_ fixture: EngineFixture) async throws -> [String] {
        var browser = BrowserContext()
        let (id, page) = try await SecondStep.open(fixture, username: "bob", password: "bobpw", browser: &browser)
        #expect(page.kind == .enrol)
        let key = try EngineFixture.require(page.totpSetup?.secret, "the key as text").replacingOccurrences(of: " ", with: "")
        let secret = try EngineFixture.require(Base32.decode(key), "a Base32 key")
        #expect(page.totpSetup?.uri.hasPrefix("otpauth://totp/") == true)
        let confirmed = try await SecondStep.submit(fixture, id, page, otp: fixture.engine.totpCode(secret), browser: browser)
        guard case .next(let next) = confirmed, EngineFixture.lastPathComponent(next) == id else { throw UnexpectedOutcome("\(confirmed)") }
        let shown = try SecondStep.model(try await fixture.engine.secondStep.page(id: id, browser: browser))
        #expect(shown.kind == .recoveryCodes)
        // Shown once: the page again says they were shown.
        #expect(try SecondStep.model(try await fixture.engine.secondStep.page(id: id, browser: browser)).recoveryCodes.isEmpty)
        let finished = try await fixture.engine.secondStep.proceed(id: id, parameters: try EngineFixture.parameters([
            ("csrf_token", shown.csrfToken)]), browser: browser)
        #expect(try await SecondStep.amr(fixture, try SecondStep.completion(finished, browser: &browser)) == ["pwd", "otp", "mfa"])
        return shown.recoveryCodes
    }

    @Test("a code from the key on the page enrols it; ten recovery codes are shown once; continue signs in")
    func enrols() async throws {
        let codes = try await Self.enrolBob(try await SecondStep.fixture())
        #expect(codes.count == 10 && Set(codes).count == 10)
    }

    @Test("a recovery code signs in once, in place of the authenticator's code")
    func recoveryCodeOnce() async throws {
        let fixture = try await SecondStep.fixture()
        let codes = try await Self.enrolBob(fixture)
        var browser = BrowserContext()
        let (id, page) = try await SecondStep.open(fixture, username: "bob", password: "bobpw", browser: &browser)
        let completion = try SecondStep.completion(try await SecondStep.submit(fixture, id, page, otp: codes[0].uppercased(),
                                                                               browser: browser), browser: &browser)
        #expect(try await SecondStep.amr(fixture, completion) == ["pwd", "otp", "mfa"])
        var again = BrowserContext()
        let (secondId, secondPage) = try await SecondStep.open(fixture, username: "bob", password: "bobpw", browser: &again)
        let refused = try SecondStep.model(try await SecondStep.submit(fixture, secondId, secondPage, otp: codes[0], browser: again))
        #expect(refused.error?.english.contains("Each recovery code works once") == true)
    }
}
