import EngineTesting
import Foundation
import IdentityConfig
import OAuthEngine
import OneTimePassword
import Testing

/// `AccountEndpoint`'s second factors (docs/account.md, docs/mfa.md): setting up the
/// authenticator app on the page, and the rule that adding or removing a factor needs a sign-in
/// within the last five minutes.
@Suite("AccountEndpoint: second factors")
struct AccountFactorTests {
    static let clientId = "\(EngineFixture.appKey).optional"

    static func fixture() async throws -> EngineFixture {
        try await EngineFixture(environments: [EngineFixture.environment(services: EngineFixture.defaultServices + [
            EngineFixture.service("optional") { $0.mfa = MFASettings(mode: .optional, methods: [.totp]) },
        ])])
    }

    static func setup(_ result: AccountResult) throws -> AuthenticatorSetupModel {
        guard case .authenticatorSetup(let model, _) = result.outcome else { throw UnexpectedOutcome("expected the set-up page, got \(result)") }
        return model
    }

    @Test("a code from the new key sets the authenticator app up and shows ten recovery codes; a wrong one keeps the page")
    func setUpAuthenticator() async throws {
        let fixture = try await Self.fixture()
        let account = try await AccountBrowser.signedIn(fixture, clientId: Self.clientId)
        let setup = try Self.setup(await fixture.engine.account.authenticator.page(account.request))
        let secret = try EngineFixture.require(Base32.decode(setup.secret.replacingOccurrences(of: " ", with: "")), "the key")
        func confirm(_ code: String) async throws -> AccountResult {
            await fixture.engine.account.authenticator.confirm(account.request, form: try EngineFixture.parameters([
                ("csrf_token", setup.csrfToken), ("setup", setup.sealedSetup), ("otp", code)]))
        }
        let wrong = try Self.setup(try await confirm(fixture.engine.wrongTOTPCode(secret)))
        #expect(wrong.error != nil)
        let done = try AccountBrowser.page(try await confirm(fixture.engine.totpCode(secret)))
        #expect(done.recoveryCodes.count == 10 && done.factors?.hasFactor == true)
        #expect(await EngineFixture.errorCode { try await fixture.passwordGrant(clientId: Self.clientId) } == "mfa_required")
    }

    @Test("five minutes after the sign-in, adding or removing a factor asks for the password again first")
    func needsRecentSignIn() async throws {
        let fixture = try await Self.fixture()
        var account = try await AccountBrowser.signedIn(fixture, clientId: Self.clientId)
        fixture.clock.advance(301)
        #expect(try await account.page().factors?.changesNeedSignIn == true)
        for result in [await fixture.engine.account.authenticator.page(account.request),
                       await fixture.engine.account.authenticator.remove(account.request, form: try await account.form([]))] {
            guard case .signIn(.loginForm(let form)) = result.outcome, result.flow != nil else { throw UnexpectedOutcome("\(result)") }
            #expect(form.username == "alice")
        }
        // Signing in again (here: the hosted page with prompt=login) opens the set-up page again.
        _ = try await fixture.signedIn(EngineFixture.authorizationPairs(clientId: Self.clientId) + [("prompt", "login")],
                                       browser: &account.browser)
        _ = try Self.setup(await fixture.engine.account.authenticator.page(account.request))
    }
}
