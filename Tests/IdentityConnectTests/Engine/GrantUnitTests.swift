import Foundation
import IdentityCore
@testable import OAuthEngine
import StoreContracts
import Testing

/// The grants on their own, without HTTP: table-driven cases of what each accepts and refuses.
@Suite("Grants, without HTTP")
struct GrantUnitTests {
    @Test("the token endpoint dispatches on grant_type", arguments: [
        ([("client_id", TestBroker.appKey)], "invalid_request"),
        ([("grant_type", "implicit")], "unsupported_grant_type"),
        ([("grant_type", "authorization_code")], "invalid_request"),
        ([("grant_type", "authorization_code"), ("code", "nope"), ("redirect_uri", TestBroker.redirect)], "invalid_grant"),
        ([("grant_type", "password"), ("username", "alice"), ("password", "wrong")], "access_denied"),
        ([("grant_type", "refresh_token"), ("refresh_token", "nope")], "invalid_grant"),
        ([("grant_type", "client_credentials")], "unauthorized_client"),
    ])
    func dispatch(pairs: [(String, String)], expected: String) async throws {
        let harness = try await EngineHarness.make()
        #expect(await EngineHarness.errorCode { try await harness.token(pairs) } == expected)
    }

    @Test("authorization_code: the checks that refuse a code, none of which burns it")
    func codeRefusals() async throws {
        let harness = try await EngineHarness.make()
        let code = try await harness.code()
        let base = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                    ("client_id", TestBroker.appKey)]
        let cases: [(String, [(String, String)], BasicCredentials?, String)] = [
            ("no verifier", base, nil, "invalid_grant"),
            ("wrong verifier", base + [("code_verifier", String(repeating: "v", count: 43))], nil, "invalid_grant"),
            ("other redirect URI", [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.nativeRedirect),
                                    ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)], nil, "invalid_grant"),
            ("other auth service", [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                                    ("client_id", "\(TestBroker.appKey).opaque"), ("code_verifier", Flows.verifier)], nil, "invalid_grant"),
        ]
        for (name, pairs, basic, expected) in cases {
            #expect(await EngineHarness.errorCode { try await harness.token(pairs, basic: basic) } == expected, "\(name)")
        }
        let tokens = try await harness.token(base + [("code_verifier", Flows.verifier)], basic: nil)
        #expect(tokens.id_token != nil && tokens.refresh_token != nil)
        #expect(await EngineHarness.errorCode { try await harness.token(base + [("code_verifier", Flows.verifier)], basic: nil) } == "invalid_grant")
    }

    @Test("authorization_code: an expired code, and one issued without PKCE redeemed without client authentication")
    func codeLifetimeAndPKCE() async throws {
        let harness = try await EngineHarness.make()
        let code = try await harness.code()
        harness.clock.advance(61)
        #expect(await EngineHarness.errorCode {
            try await harness.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                                     ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)], basic: nil)
        } == "invalid_grant")
        let plain = try await harness.code(pkce: false)
        let pairs = [("grant_type", "authorization_code"), ("code", plain), ("redirect_uri", TestBroker.redirect), ("client_id", TestBroker.appKey)]
        #expect(await EngineHarness.errorCode { try await harness.token(pairs, basic: nil) } == "invalid_client")
        #expect(try await harness.token(pairs).access_token.isEmpty == false)
    }

    @Test("refresh_token: rotation, the grace period, reuse revoking the family")
    func refreshRotation() async throws {
        let harness = try await EngineHarness.make()
        let first = try await harness.token([("grant_type", "password"), ("username", "alice"), ("password", "alicepw"), ("scope", "openid")])
        let refresh = try #require(first.refresh_token)
        let rotated = try await harness.token([("grant_type", "refresh_token"), ("refresh_token", refresh)])
        #expect(rotated.refresh_token != refresh)
        // Within 10 s the rotated-away token returns the same pair (a device retrying).
        let retried = try await harness.token([("grant_type", "refresh_token"), ("refresh_token", refresh)])
        #expect(retried.refresh_token == rotated.refresh_token)
        harness.clock.advance(11)
        #expect(await EngineHarness.errorCode { try await harness.token([("grant_type", "refresh_token"), ("refresh_token", refresh)]) } == "invalid_grant")
        // The reuse revoked the family: the newest token is dead too.
        #expect(await EngineHarness.errorCode {
            try await harness.token([("grant_type", "refresh_token"), ("refresh_token", try #require(rotated.refresh_token))])
        } == "invalid_grant")
    }

    @Test("refresh_token: the grant struct on its own refuses a family issued to an authenticated client without authentication")
    func refreshGrantAlone() async throws {
        let harness = try await EngineHarness.make()
        let issued = try await harness.token([("grant_type", "password"), ("username", "alice"), ("password", "alicepw")])
        let grant = try #require(harness.engine.tokens.grants[RefreshTokenGrant.grantType])
        let client = try #require(try await harness.engine.clients.resolve(TestBroker.appKey))
        let parameters = try EngineHarness.parameters([("refresh_token", try #require(issued.refresh_token))])
        #expect(await EngineHarness.errorCode {
            try await grant.grant(parameters, client: AuthenticatedClient(client: client, authenticated: false),
                                  keys: harness.engine.state.keys, clientAddress: nil)
        } == "invalid_client")
        let rotated = try await grant.grant(parameters, client: AuthenticatedClient(client: client, authenticated: true),
                                            keys: harness.engine.state.keys, clientAddress: nil)
        #expect(rotated.refresh_token != nil)
    }

    @Test("password: throttled after five failures for one username, whatever its spelling")
    func passwordThrottle() async throws {
        let harness = try await EngineHarness.make()
        for spelling in ["alice", "Alice", " ALICE ", "alice", "aLiCe"] {
            #expect(await EngineHarness.errorCode {
                try await harness.token([("grant_type", "password"), ("username", spelling), ("password", "wrong")])
            } == "access_denied")
        }
        do {
            _ = try await harness.token([("grant_type", "password"), ("username", "alice"), ("password", "alicepw")])
            Issue.record("not throttled")
        } catch let error as OAuthError {
            #expect(error.status == 429)
        }
    }
}
