import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// What one app's revocation reaches when several apps share a sign-in through SSO: that app's
/// tokens only, and the session (with its upstream token) once no app holds tokens in it.
@Suite("Revocation scope across SSO apps")
struct RevocationScopeTests {
    static let secrets = ["kid_one": "one-secret-1234", "kid_two": "two-secret-1234"]

    /// Signs in to kid_one through the form, then kid_two through the SSO cookie; returns both
    /// token answers and the cookie.
    static func twoApps(_ client: any TestClientProtocol) async throws -> (one: [String: Any], two: [String: Any], sso: String) {
        let (sso, firstCode) = try await SSOAndLogoutTests.signInOne(client)
        let one = try await exchange(client, "kid_one", firstCode)
        #expect(one.status == .ok)
        let silent = try await SSOAndLogoutTests.authorize(client, "kid_two", prompt: "none", sso: sso)
        let silentLocation = try #require(silent.location)
        let secondCode = try #require(queryItems(silentLocation)["code"])
        let two = try await exchange(client, "kid_two", secondCode)
        #expect(two.status == .ok)
        return (one.json, two.json, sso)
    }

    static func exchange(_ client: any TestClientProtocol, _ clientId: String, _ code: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", TestBroker.redirect), ("client_id", clientId), ("code_verifier", Flows.verifier)])
    }

    static func revoke(_ client: any TestClientProtocol, _ clientId: String, _ token: String) async throws -> TestResponse {
        try await client.postForm("/oauth/revoke", [("token", token)], headers: basicAuth(clientId, secrets[clientId]!))
    }

    static func refresh(_ client: any TestClientProtocol, _ clientId: String, _ token: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", token)],
                                  headers: basicAuth(clientId, secrets[clientId]!))
    }

    static func alive(_ client: any TestClientProtocol, _ tokens: [String: Any]) async throws -> Bool {
        try await client.get("/oauth/validate?access_token=\(tokens["access_token"] as! String)").status == .ok
    }

    @Test("revoking one app's refresh token keeps the other app's tokens and the SSO; revoking the last ends the session")
    func refreshTokenRevocation() async throws {
        let broker = try await TestBroker.make(files: SSOAndLogoutTests.files)
        try await broker.withClient { client in
            let (one, two, sso) = try await Self.twoApps(client)
            #expect(try await Self.revoke(client, "kid_one", one["refresh_token"] as! String).status == .ok)
            #expect(try await !Self.alive(client, one))
            #expect(try await Self.refresh(client, "kid_one", one["refresh_token"] as! String).status == .badRequest)
            #expect(try await Self.alive(client, two))
            let rotated = try await Self.refresh(client, "kid_two", two["refresh_token"] as! String)
            #expect(rotated.status == .ok)
            let silent = try await SSOAndLogoutTests.authorize(client, "kid_two", prompt: "none", sso: sso)
            let silentLocation = try #require(silent.location)
            let thirdCode = try #require(queryItems(silentLocation)["code"])

            // kid_two's answer from the silent sign-in above is a third family; spend its code so
            // kid_two holds two families, then revoke both: the session ends with the last.
            let third = try await Self.exchange(client, "kid_two", thirdCode).json
            #expect(try await Self.revoke(client, "kid_two", rotated.json["refresh_token"] as! String).status == .ok)
            #expect(try await Self.alive(client, third))
            #expect(try await Self.revoke(client, "kid_two", third["refresh_token"] as! String).status == .ok)
            #expect(try await !Self.alive(client, third))
            let after = try await SSOAndLogoutTests.authorize(client, "kid_two", prompt: "none", sso: sso)
            #expect(queryItems(try #require(after.location))["error"] == "login_required")
        }
    }

    @Test("a reused refresh token revokes that app's family only")
    func reuse() async throws {
        let broker = try await TestBroker.make(files: SSOAndLogoutTests.files)
        try await broker.withClient { client in
            let (one, two, _) = try await Self.twoApps(client)
            let stolen = one["refresh_token"] as! String
            let rotated = try await Self.refresh(client, "kid_one", stolen)
            #expect(rotated.status == .ok)
            broker.clock.advance(11)  // past the 10 s retry grace
            #expect(try await Self.refresh(client, "kid_one", stolen).status == .badRequest)
            #expect(try await !Self.alive(client, rotated.json))
            #expect(try await Self.alive(client, two))
        }
    }

    @Test("a replayed code revokes what that code issued, not the other app's tokens")
    func codeReplay() async throws {
        let broker = try await TestBroker.make(files: SSOAndLogoutTests.files)
        try await broker.withClient { client in
            let (sso, firstCode) = try await SSOAndLogoutTests.signInOne(client)
            let one = try await Self.exchange(client, "kid_one", firstCode).json
            let silent = try await SSOAndLogoutTests.authorize(client, "kid_two", prompt: "none", sso: sso)
            let silentLocation = try #require(silent.location)
            let code = try #require(queryItems(silentLocation)["code"])
            let two = try await Self.exchange(client, "kid_two", code).json
            let replay = try await Self.exchange(client, "kid_two", code)
            #expect(replay.status == .badRequest && replay.json["error"] as? String == "invalid_grant")
            #expect(try await !Self.alive(client, two))
            #expect(try await Self.alive(client, one))
        }
    }
}
