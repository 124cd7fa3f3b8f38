import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `grant_type=authorization_code` (docs/protocol.md, "POST /oauth/token"; docs/security.md,
/// rule 2): PKCE S256, the exact redirect URI, single use, a replay revoking what the code issued,
/// and a code without a challenge only for an authenticated client.
@Suite("AuthorizationCodeGrant")
struct AuthorizationCodeGrantTests {
    @Test("a code is redeemed once with its verifier; scope openid brings an ID token for the client")
    func redeemsOnce() async throws {
        let fixture = try await EngineFixture()
        let code = try await fixture.code()
        let tokens = try await fixture.exchange(code, basic: nil)
        #expect(tokens.token_type == "Bearer" && tokens.refresh_token != nil && tokens.expires_in == 600)
        let claims = EngineFixture.claims(tokens.id_token)
        #expect(claims["aud"] == .string(EngineFixture.appKey))
        #expect(claims["amr"] == .array([.string("pwd")]))
        #expect(await EngineFixture.errorCode { try await fixture.exchange(code, basic: nil) } == "invalid_grant")
    }

    @Test("a wrong or missing verifier, another redirect URI or another client is refused without burning the code")
    func refusalsKeepTheCode() async throws {
        let fixture = try await EngineFixture()
        let code = try await fixture.code()
        let cases: [(String, () async throws -> TokenResponse)] = [
            ("no verifier", { try await fixture.exchange(code, verifier: nil, basic: nil) }),
            ("wrong verifier", { try await fixture.exchange(code, verifier: String(repeating: "v", count: 43), basic: nil) }),
            ("other redirect URI", { try await fixture.exchange(code, redirectURI: EngineFixture.nativeRedirect, basic: nil) }),
            ("other auth service", { try await fixture.exchange(code, clientId: "\(EngineFixture.appKey).opaque", basic: nil) }),
        ]
        for (name, attempt) in cases {
            #expect(await EngineFixture.errorCode(attempt) == "invalid_grant", "\(name)")
        }
        #expect(try await fixture.exchange(code, basic: nil).access_token.isEmpty == false)
    }

    @Test("a replay that passes the checks revokes what the first redemption issued; one that fails them changes nothing")
    func replayRevokes() async throws {
        let fixture = try await EngineFixture()
        let code = try await fixture.code()
        let first = try await fixture.exchange(code)
        let validate = { try await fixture.engine.validation.validate(accessToken: first.access_token, basic: nil) }
        #expect(await EngineFixture.errorCode { try await fixture.exchange(code, verifier: String(repeating: "v", count: 43)) }
            == "invalid_grant")
        #expect(await EngineFixture.errorCode(validate) == nil)
        #expect(await EngineFixture.errorCode { try await fixture.exchange(code) } == "invalid_grant")
        #expect(await EngineFixture.errorCode(validate) == "invalid_token")
        #expect(await EngineFixture.errorCode { try await fixture.refresh(first.refresh_token) } == "invalid_grant")
    }

    @Test("a code issued without a challenge is redeemed only with client authentication")
    func withoutChallenge() async throws {
        let fixture = try await EngineFixture()
        let code = try await fixture.code(pkce: false)
        #expect(await EngineFixture.errorCode { try await fixture.exchange(code, verifier: nil, basic: nil) } == "invalid_client")
        #expect(try await fixture.exchange(code, verifier: nil).access_token.isEmpty == false)
    }

    @Test("a code lives grantTtl seconds (60 for this auth service)")
    func expires() async throws {
        let fixture = try await EngineFixture()
        let fresh = try await fixture.code()
        let stale = try await fixture.code()
        fixture.clock.advance(59)
        #expect(await EngineFixture.errorCode { try await fixture.exchange(fresh) } == nil)
        fixture.clock.advance(2)
        #expect(await EngineFixture.errorCode { try await fixture.exchange(stale) } == "invalid_grant")
    }
}
