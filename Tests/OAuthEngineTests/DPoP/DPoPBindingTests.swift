import EngineTesting
import Foundation
import IdentityCore
@testable import OAuthEngine
import Testing

/// Refresh-token binding beyond public clients (docs/dpop.md, "Binding"): a confidential client's
/// bound family needs the key as well, and a bearer family of a client that must now use DPoP is
/// not upgraded silently.
@Suite("DPoP binding of refresh tokens")
struct DPoPBindingTests {
    static let tokenURL = EngineFixture.issuer + "/oauth/token"

    @Test("a confidential client's bound refresh token needs a proof of its key too, its secret is not enough")
    func confidentialClient() async throws {
        let fixture = try await EngineFixture()
        let key = TestDPoPKey()
        let tokens = try await fixture.token([("grant_type", "password"), ("client_id", EngineFixture.appKey),
                                              ("username", TestUser.alice.username), ("password", TestUser.alice.password)],
                                             dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        #expect(await EngineFixture.errorCode { try await fixture.refresh(tokens.refresh_token) } == "invalid_dpop_proof")
        let rotated = try await fixture.token([("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refresh_token))],
                                              dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        #expect(rotated.token_type == "DPoP")
    }

    @Test("an instance that turns dpop_bound_access_tokens on: its bearer refresh token is refused (sign in again), never upgraded")
    func bearerFamilyOfRequiredClient() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.registeringEnvironment()])
        let instance = try await fixture.registerInstance()
        let tokens = try await fixture.signIn(instance: instance)
        #expect(tokens.token_type == "Bearer")
        _ = try await fixture.engine.registration.update(clientId: instance.client_id, registrationToken: instance.registration_access_token,
                                                         body: ["dpop_bound_access_tokens": .bool(true)])
        let refresh = [("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refresh_token))]
        let credentials = EngineFixture.credentials(of: instance)
        #expect(await EngineFixture.errorCode { try await fixture.token(refresh, basic: credentials) } == "invalid_dpop_proof")
        let proof = TestDPoPKey().proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())
        #expect(await EngineFixture.errorCode { try await fixture.token(refresh, basic: credentials, dpop: [proof]) } == "invalid_grant")
    }
}
