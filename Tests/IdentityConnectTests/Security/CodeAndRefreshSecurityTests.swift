import Foundation
import HummingbirdTesting
import Testing

/// docs/security.md, rule 2: a code is consumed only after client authentication and PKCE verify; a
/// refresh token issued after client authentication needs the same authentication to be used.
@Suite("Security: codes and refresh tokens are bound to their client")
struct CodeAndRefreshSecurityTests {
    static func code(_ client: any TestClientProtocol) async throws -> String {
        let location = try await Flows.browserLogin(client)
        return try #require(queryItems(location)["code"])
    }

    static func exchange(_ client: any TestClientProtocol, _ code: String, verifier: String = Flows.verifier,
                         redirect: String = TestBroker.redirect, clientId: String = TestBroker.appKey) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                                                   ("client_id", clientId), ("code_verifier", verifier)])
    }

    @Test("a wrong verifier, redirect URI or client does not burn the code; the rightful holder still redeems it")
    func failedAttemptsKeepTheCode() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let code = try await Self.code(client)
            #expect(try await Self.exchange(client, code, verifier: String(repeating: "v", count: 43)).json["error"] as? String == "invalid_grant")
            #expect(try await Self.exchange(client, code, redirect: TestBroker.nativeRedirect).json["error"] as? String == "invalid_grant")
            #expect(try await Self.exchange(client, code, clientId: "\(TestBroker.appKey).opaque").json["error"] as? String == "invalid_grant")
            let good = try await Self.exchange(client, code)
            #expect(good.status == .ok)
            let access = try #require(good.json["access_token"] as? String)
            // A replay that fails PKCE changes nothing; one that passes revokes what the code issued.
            #expect(try await Self.exchange(client, code, verifier: String(repeating: "v", count: 43)).json["error"] as? String == "invalid_grant")
            #expect(try await Flows.validate(client, access).status == .ok)
            #expect(try await Self.exchange(client, code).json["error"] as? String == "invalid_grant")
            #expect(try await Flows.validate(client, access).status == .unauthorized)
        }
    }

    @Test("a refresh token issued after Basic authentication needs it again; one issued to a PKCE-only client does not")
    func refreshBoundToAuthentication() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            // Kinvey SDK style: the code exchanged with Basic appKey:appSecret.
            let authenticated = try await Flows.exchange(client, code: try await Self.code(client), verifier: Flows.verifier)
            let refresh = try #require(authenticated.json["refresh_token"] as? String)
            let stolen = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh),
                                                                    ("client_id", TestBroker.appKey)])
            #expect(stolen.status == .unauthorized)
            #expect(stolen.json["error"] as? String == "invalid_client")
            // The failed attempt did not count as reuse: the holder's refresh still works.
            #expect(try await Flows.refresh(client, refresh).status == .ok)
            // A public client (PKCE, no secret) refreshes by possession.
            let publicTokens = try await Self.exchange(client, try await Self.code(client))
            let publicRefresh = try #require(publicTokens.json["refresh_token"] as? String)
            let rotated = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", publicRefresh),
                                                                     ("client_id", TestBroker.appKey)])
            #expect(rotated.status == .ok)
        }
    }
}
