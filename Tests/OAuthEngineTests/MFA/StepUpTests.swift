import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import OneTimePassword
import Testing

/// Step-up on request (docs/mfa.md, "Step-up on request"): `acr_values` naming only the
/// second-factor class, or an essential `acr` claim naming it, make the sign-in include a second
/// factor, through the login form and over an SSO session alike; the ID token's `acr` says what
/// happened.
@Suite("Step-up on request")
struct StepUpTests {
    static let mfa = "urn:idconnect:acr:mfa"
    static let pwd = "urn:idconnect:acr:pwd"

    static func pairs(_ extra: [(String, String)], clientId: String = SecondStep.optional) -> [(String, String)] {
        EngineFixture.authorizationPairs(clientId: clientId) + extra
    }

    static func acr(_ fixture: EngineFixture, _ completion: SignInCompletion, clientId: String) async throws -> String? {
        let code = try #require(completion.redirect["code"])
        return EngineFixture.claims(try await fixture.exchange(code, clientId: clientId).id_token)["acr"]?.stringValue
    }

    @Test("with mfa optional, a user without a factor signs in with a password; asked for mfa, enrols one first")
    func enrolsWhenAsked() async throws {
        let fixture = try await SecondStep.fixture()
        var browser = BrowserContext()
        let plain = try await fixture.signedIn(Self.pairs([]), browser: &browser)
        #expect(try await Self.acr(fixture, plain, clientId: SecondStep.optional) == Self.pwd)
        var other = BrowserContext()
        let asked = try await fixture.browserSignIn(Self.pairs([("acr_values", Self.mfa)]), browser: &other)
        let page = try EngineFixture.require(asked.secondStepPage, "the second-step page, got \(asked)")
        let model = try SecondStep.model(try await fixture.engine.secondStep.page(id: EngineFixture.lastPathComponent(page), browser: other))
        #expect(model.totpSetup != nil, "a user without a factor enrols one")
    }

    @Test("an SSO session signed in with a password is stepped up when the app asks; the ID token says mfa")
    func ssoStepUp() async throws {
        let fixture = try await SecondStep.fixture()
        var browser = BrowserContext()
        _ = try await fixture.signedIn(Self.pairs([]), browser: &browser)
        let claims = #"{"id_token":{"acr":{"essential":true,"values":["\#(Self.mfa)"]}}}"#
        for extra in [[("acr_values", Self.mfa)], [("claims", claims)]] {
            var copy = browser
            guard case .secondStep = try await fixture.authorize(Self.pairs(extra), browser: &copy) else {
                throw UnexpectedOutcome("expected a step-up for \(extra)")
            }
        }
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: SecondStep.optional)
        guard case .secondStep(let page) = try await fixture.authorize(Self.pairs([("acr_values", Self.mfa)]), browser: &browser) else {
            throw UnexpectedOutcome("expected a step-up")
        }
        let id = EngineFixture.lastPathComponent(page)
        let model = try SecondStep.model(try await fixture.engine.secondStep.page(id: id, browser: browser))
        let completion = try SecondStep.completion(try await SecondStep.submit(fixture, id, model, otp: fixture.engine.totpCode(secret),
                                                                               browser: browser), browser: &browser)
        #expect(try await Self.acr(fixture, completion, clientId: SecondStep.optional) == Self.mfa)
    }

    @Test("the password class named too, unknown classes, or acr not essential: no step-up", arguments: [
        [("acr_values", "\(mfa) \(pwd)")], [("acr_values", "1 2")], [("acr_values", "")],
        [("claims", #"{"id_token":{"acr":{"values":["urn:idconnect:acr:mfa"]}}}"#)],
        [("claims", #"{"id_token":{"acr":{"essential":true,"value":"urn:other"}}}"#)],
    ])
    func noStepUp(extra: [(String, String)]) async throws {
        let fixture = try await SecondStep.fixture()
        var browser = BrowserContext()
        let completion = try await fixture.signedIn(Self.pairs(extra), browser: &browser)
        #expect(try await Self.acr(fixture, completion, clientId: SecondStep.optional) == Self.pwd)
    }

    @Test("an auth service without second factors: acr_values signs in with a password; an essential mfa acr is refused")
    func unreachable() async throws {
        let fixture = try await EngineFixture()
        var browser = BrowserContext()
        let completion = try await fixture.signedIn(Self.pairs([("acr_values", Self.mfa)], clientId: EngineFixture.appKey), browser: &browser)
        #expect(try await Self.acr(fixture, completion, clientId: EngineFixture.appKey) == Self.pwd)
        let essential = #"{"id_token":{"acr":{"essential":true,"value":"\#(Self.mfa)"}}}"#
        guard case .redirect(let answer, _) = try await fixture.authorize(Self.pairs([("claims", essential)], clientId: EngineFixture.appKey),
                                                                          browser: &browser) else {
            throw UnexpectedOutcome("expected an error for the client")
        }
        #expect(answer["error"] == "unmet_authentication_requirements" && answer["state"] == "st")
    }
}
