import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `grant_type=client_credentials`, an app instance's "re-login" (docs/protocol.md, "Mobile app
/// instances"; docs/security.md, rule 1): an access token for the user the instance is bound to,
/// and an instance is bound only by redeeming a code of that user with its own credentials.
@Suite("ClientCredentialsGrant")
struct ClientCredentialsGrantTests {
    static func relogin(_ fixture: EngineFixture, _ instance: RegistrationResponse,
                        basic: BasicCredentials? = nil) async throws -> TokenResponse {
        try await fixture.token([("grant_type", "client_credentials")], basic: basic ?? EngineFixture.credentials(of: instance))
    }

    @Test("only registered instances may use it")
    func configuredClientRefused() async throws {
        let fixture = try await EngineFixture()
        #expect(await EngineFixture.errorCode { try await fixture.token([("grant_type", "client_credentials")]) } == "unauthorized_client")
    }

    @Test("issuing the instance a code binds nothing, nor does an SSO sign-in with prompt=none")
    func codesBindNothing() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.registeringEnvironment()])
        let instance = try await fixture.registerInstance()
        #expect(await EngineFixture.errorCode { try await Self.relogin(fixture, instance) } == "invalid_grant")
        var browser = BrowserContext()
        let pairs = EngineFixture.authorizationPairs(clientId: instance.client_id, redirectURI: EngineFixture.nativeRedirect)
        _ = try await fixture.signedIn(pairs, browser: &browser)
        let silent = try await fixture.authorize(pairs + [("prompt", "none")], browser: &browser)
        guard case .redirect(let location, _) = silent else { throw UnexpectedOutcome("\(silent)") }
        #expect(EngineFixture.query(location)["code"] != nil)
        #expect(await EngineFixture.errorCode { try await Self.relogin(fixture, instance) } == "invalid_grant")
    }

    @Test("redeeming its own code binds it: an access token for that user, no refresh or ID token, until it signs out")
    func reloginOfBoundInstance() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.registeringEnvironment()])
        let instance = try await fixture.registerInstance()
        let signedIn = try await fixture.signIn(instance: instance)
        let relogin = try await Self.relogin(fixture, instance)
        #expect(relogin.refresh_token == nil && relogin.id_token == nil)
        #expect(EngineFixture.claims(relogin.access_token)["sub"] == EngineFixture.claims(signedIn.id_token)["sub"])
        #expect(EngineFixture.claims(relogin.access_token)["client_id"] == .string(instance.client_id))
        try await fixture.engine.revocation.revoke(try EngineFixture.parameters([("token", try #require(signedIn.refresh_token))]),
                                                   basic: EngineFixture.credentials(of: instance))
        #expect(await EngineFixture.errorCode { try await Self.relogin(fixture, instance) } == "invalid_grant")
    }

    @Test("a wrong secret is invalid_client; another user's code does not move a bound instance")
    func credentialsAndOtherUsers() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.registeringEnvironment()])
        let instance = try await fixture.registerInstance()
        _ = try await fixture.signIn(instance: instance)
        let wrong = BasicCredentials(user: instance.client_id, password: "not-its-secret")
        #expect(await EngineFixture.errorCode { try await Self.relogin(fixture, instance, basic: wrong) } == "invalid_client")
        #expect(await EngineFixture.errorCode { try await fixture.signIn(instance: instance, username: "bob", password: "bobpw") }
            == "access_denied")
        let alice = EngineFixture.claims(try await fixture.passwordGrant().id_token)["sub"]
        #expect(EngineFixture.claims(try await Self.relogin(fixture, instance).access_token)["sub"] == alice)
    }
}
