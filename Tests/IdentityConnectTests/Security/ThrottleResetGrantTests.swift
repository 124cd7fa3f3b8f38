import Foundation
import HummingbirdTesting
import Testing

/// docs/security.md, rule 6, for the password grant and for app instances: a correct password
/// clears the username's failed attempts whether the grant issues tokens (the reset rides in
/// `startSession`) or asks for a one-time code, and when an app instance's sign-in is refused
/// because the instance belongs to someone else (settled in a write of its own). Four wrong passwords and the right one, twice
/// over, pass only if the first right one cleared the count.
@Suite("Security: a correct password resets the login throttle (password grant, app instances)")
struct ThrottleResetGrantTests {
    static func passwordGrant(_ client: any TestClientProtocol, clientId: String = TestBroker.appKey,
                              secret: String = TestBroker.appSecret, username: String = "bob",
                              password: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", username), ("password", password)],
                                  headers: basicAuth(clientId, secret))
    }

    @Test("password grant: the write that starts the session clears the username's count", arguments: StoreBackend.allCases)
    func grant(_ backend: StoreBackend) async throws {
        let broker = try await TestBroker.make(backend: backend)
        try await broker.withClient { client in
            for round in 1...2 {
                for _ in 1...4 { #expect(try await Self.passwordGrant(client, password: "wrong").status == .badRequest) }
                let granted = try await Self.passwordGrant(client, password: "bobpw")
                #expect(granted.status == .ok, "round \(round): \(granted.text)")
                // What the one write stored works: the access token validates, the refresh token rotates.
                let access = try must(granted.json["access_token"] as? String)
                #expect(try await Flows.validate(client, access).status == .ok)
                let refresh = try must(granted.json["refresh_token"] as? String)
                let refreshed = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                                          headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
                #expect(refreshed.status == .ok, "\(refreshed.text)")
            }
            // Without the right password in between, the sixth attempt is held back.
            for _ in 1...5 { _ = try await Self.passwordGrant(client, password: "wrong") }
            #expect(try await Self.passwordGrant(client, password: "bobpw").status == .tooManyRequests)
        }
    }

    @Test("password grant with a second factor: the reset is settled before the one-time code is asked for",
          arguments: StoreBackend.allCases)
    func grantSecondFactor(_ backend: StoreBackend) async throws {
        let broker = try await MFAFixture.make(backend: backend)
        try await MFAFixture.enrolTOTP(broker, service: "required", user: "alice", secret: Array("abcdefghijabcdefghij".utf8))
        try await broker.withClient { client in
            for round in 1...2 {
                for _ in 1...4 { #expect(try await MFAFixture.passwordGrant(client, password: "wrong").status == .badRequest) }
                let refused = try await MFAFixture.passwordGrant(client)
                #expect(refused.json["error"] as? String == "mfa_required", "round \(round): \(refused.text)")
            }
        }
    }

    @Test("temp login URI of an app instance registered to another user: the refusal after the right password settles the reset")
    func instanceOfAnotherUser() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            #expect(try await InstanceFlows.signIn(client, instance).status == .ok)  // now alice's
            func attempt(_ password: String) async throws -> String? {
                let start = try await client.postForm("/oauth/auth", [
                    ("client_id", instance.clientId), ("redirect_uri", TestBroker.nativeRedirect), ("response_type", "code"),
                    ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")], headers: instance.basic)
                let uri = try must(start.json["temp_login_uri"] as? String, "\(start.text)")
                let answer = try await client.postForm(pathOf(uri), [("username", "bob"), ("password", password)])
                return queryItems(try must(answer.location))["error_description"]
            }
            for round in 1...2 {
                for _ in 1...4 { #expect(try await attempt("wrong")?.contains("Too many") == false) }
                let refused = try await attempt("bobpw")
                #expect(refused?.contains("registered to another user") == true, "round \(round): \(refused ?? "-")")
            }
        }
    }
}
