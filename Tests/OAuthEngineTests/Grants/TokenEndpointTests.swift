import EngineTesting
import IdentityCore
import OAuthEngine
import Testing

/// `TokenEndpoint`: client authentication, then the grant `grant_type` names
/// (docs/protocol.md, "POST /oauth/token").
@Suite("TokenEndpoint")
struct TokenEndpointTests {
    @Test("the token endpoint dispatches on grant_type", arguments: [
        ([("client_id", EngineFixture.appKey)], "invalid_request"),
        ([("grant_type", "implicit")], "unsupported_grant_type"),
        ([("grant_type", "authorization_code")], "invalid_request"),
        ([("grant_type", "authorization_code"), ("code", "nope"), ("redirect_uri", EngineFixture.redirect)], "invalid_grant"),
        ([("grant_type", "password"), ("username", "alice"), ("password", "wrong")], "access_denied"),
        ([("grant_type", "refresh_token"), ("refresh_token", "nope")], "invalid_grant"),
        ([("grant_type", "client_credentials")], "unauthorized_client"),
    ])
    func dispatch(pairs: [(String, String)], expected: String) async throws {
        let fixture = try await EngineFixture()
        #expect(await EngineFixture.errorCode { try await fixture.token(pairs) } == expected)
    }

    @Test("a wrong secret is invalid_client (401), whatever the grant")
    func wrongSecret() async throws {
        let fixture = try await EngineFixture()
        let wrong = BasicCredentials(user: EngineFixture.appKey, password: "not-the-secret")
        do {
            _ = try await fixture.passwordGrant(basic: wrong)
            Issue.record("a wrong secret was accepted")
        } catch let error as OAuthError {
            #expect(error.code == .invalidClient && error.status == 401)
        }
    }
}
