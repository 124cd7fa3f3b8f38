import EngineTesting
import Foundation
import IdentityConfig
import OAuthEngine

/// A fixture whose `kid_test` environment asks for second factors (docs/mfa.md), and the steps of
/// the second-step page as a browser takes them.
enum SecondStep {
    static let required = "\(EngineFixture.appKey).required"
    static let optional = "\(EngineFixture.appKey).optional"

    static func fixture() async throws -> EngineFixture {
        try await EngineFixture(environments: [EngineFixture.environment(services: [
            EngineFixture.service("required") { $0.mfa = MFASettings(mode: .required, methods: [.totp]) },
            EngineFixture.service("optional") { $0.mfa = MFASettings(mode: .optional) },
        ])])
    }

    /// Signs `username` in at `clientId` in `browser` up to the second-step page: its id and model.
    static func open(_ fixture: EngineFixture, clientId: String = required, username: String = "alice", password: String = "alicepw",
                     browser: inout BrowserContext) async throws -> (id: String, model: SecondStepPageModel) {
        let outcome = try await fixture.browserSignIn(EngineFixture.authorizationPairs(clientId: clientId), username: username,
                                                      password: password, browser: &browser)
        let page = try EngineFixture.require(outcome.secondStepPage, "the second-step page, got \(outcome)")
        let id = EngineFixture.lastPathComponent(page)
        return (id, try model(try await fixture.engine.secondStep.page(id: id, browser: browser)))
    }

    /// Posts `otp` on the page `id` shows with `model`.
    static func submit(_ fixture: EngineFixture, _ id: String, _ model: SecondStepPageModel, otp: String,
                       browser: BrowserContext) async throws -> SecondStepOutcome {
        try await fixture.engine.secondStep.submitCode(id: id, parameters: try EngineFixture.parameters([
            ("csrf_token", model.csrfToken), ("otp", otp)]), browser: browser)
    }

    static func model(_ outcome: SecondStepOutcome) throws -> SecondStepPageModel {
        guard case .page(let model, _) = outcome else { throw UnexpectedOutcome("expected the second-step page, got \(outcome)") }
        return model
    }

    /// The finished sign-in of an outcome (the browser keeps its SSO cookie).
    static func completion(_ outcome: SecondStepOutcome, browser: inout BrowserContext) throws -> SignInCompletion {
        guard case .finished(.signedIn(let completion)) = outcome else { throw UnexpectedOutcome("expected a sign-in, got \(outcome)") }
        if let sso = completion.sso { browser.ssoToken = sso.value }
        return completion
    }

    /// The `amr` of the ID token the completion's code brings.
    static func amr(_ fixture: EngineFixture, _ completion: SignInCompletion, clientId: String = required) async throws -> [String] {
        let code = try EngineFixture.require(EngineFixture.query(completion.redirect)["code"], "a code")
        let claims = EngineFixture.claims(try await fixture.exchange(code, clientId: clientId).id_token)
        guard case .array(let values)? = claims["amr"] else { return [] }
        return values.compactMap(\.stringValue)
    }
}
