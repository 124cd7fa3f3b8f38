import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

@Suite("Validate, introspect, userinfo, revoke")
struct ValidationTests {
    @Test("validate answers the MIC shape, filtered by allowedAttributes")
    func validateShape() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let tokens = try await Flows.tokens(client)
            let access = try #require(tokens["access_token"] as? String)
            for path in ["/oauth/validate?access_token=", "/v1/oauth/validate?access_token=", "/v3/oauth/validate?access_token="] {
                let response = try await client.get(path + access)
                #expect(response.status == .ok)
                let body = response.json
                #expect(body["id"] as? String == "alice")
                #expect(body["audience"] as? String == TestBroker.appKey)
                #expect((body["expires_in"] as? Int).map { $0 > 590 && $0 <= 600 } == true)
                #expect(body["email"] as? String == "alice@example.org")
                #expect(body["groups"] as? [String] == ["admins", "staff"])
                #expect(body["datalink_headers"] is [String: Any])
            }
            let bearer = try await client.get("/oauth/validate", headers: [.authorization: "Bearer \(access)"])
            #expect(bearer.status == .ok)
            for bad in ["", "garbage", access + "x", String(access.dropLast(3)), "a.b.c"] {
                let response = try await client.get("/oauth/validate?access_token=\(RedirectURL.encode(bad))")
                #expect(response.status.code == 401 || response.status.code == 400)
            }
            // An opaque token validates the same way.
            let opaque = try await Flows.tokens(client, clientId: "\(TestBroker.appKey).opaque")
            let opaqueBody = try await Flows.validate(client, try #require(opaque["access_token"] as? String)).json
            #expect(opaqueBody["audience"] as? String == "\(TestBroker.appKey).opaque")
        }
    }

    @Test("introspection: active, then inactive after revoke; client authentication required")
    func introspection() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let tokens = try await Flows.tokens(client)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            let active = try await Flows.introspect(client, access)
            #expect(active["active"] as? Bool == true)
            #expect(active["username"] as? String == "alice")
            #expect(active["client_id"] as? String == TestBroker.appKey)
            #expect(try await Flows.introspect(client, refresh)["token_type"] as? String == "refresh_token")
            let anonymous = try await client.postForm("/oauth/introspect", [("token", access), ("client_id", TestBroker.appKey)])
            #expect(anonymous.status == .unauthorized)
            #expect(try await Flows.introspect(client, "nonsense")["active"] as? Bool == false)

            let revoke = try await client.postForm("/oauth/revoke", [("token", refresh)], headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            #expect(revoke.status == .ok)
            #expect(try await Flows.introspect(client, access)["active"] as? Bool == false)
            #expect(try await Flows.introspect(client, refresh)["active"] as? Bool == false)
            #expect(try await Flows.validate(client, access).status == .unauthorized)
            #expect(try await Flows.refresh(client, refresh).status == .badRequest)
        }
    }

    @Test("revoking an access token revokes only it; unknown tokens still answer 200")
    func accessRevocation() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let tokens = try await Flows.tokens(client)
            let access = try #require(tokens["access_token"] as? String)
            let auth = basicAuth(TestBroker.appKey, TestBroker.appSecret)
            #expect(try await client.postForm("/oauth/revoke", [("token", access), ("token_type_hint", "access_token")], headers: auth).status == .ok)
            #expect(try await Flows.validate(client, access).status == .unauthorized)
            #expect(try await Flows.refresh(client, try #require(tokens["refresh_token"] as? String)).status == .ok)
            #expect(try await client.postForm("/oauth/revoke", [("token", "whatever")], headers: auth).status == .ok)
            #expect(try await client.postForm("/oauth/revoke", [], headers: auth).status == .badRequest)
            #expect(try await client.postForm("/oauth/revoke", [("token", "x")], headers: basicAuth(TestBroker.appKey, "bad")).status == .unauthorized)
        }
    }

    @Test("userinfo: claims by scope, openid required")
    func userInfo() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let auth = basicAuth(TestBroker.appKey, TestBroker.appSecret)
            let withScopes = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "alice"), ("password", "alicepw"),
                                                                        ("scope", "openid email profile groups")], headers: auth).json
            let access = try #require(withScopes["access_token"] as? String)
            let info = try await client.get("/oauth/userinfo", headers: [.authorization: "Bearer \(access)"]).json
            #expect(info["email"] as? String == "alice@example.org")
            #expect(info["name"] as? String == "Alice")
            #expect(info["groups"] as? [String] == ["admins", "staff"])
            #expect(info["sub"] is String)
            let post = try await client.postForm("/oauth/userinfo", [("access_token", access)])
            #expect(post.status == .ok)
            let plain = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "alice"), ("password", "alicepw")], headers: auth).json
            let denied = try await client.get("/oauth/userinfo", headers: [.authorization: "Bearer \(try #require(plain["access_token"] as? String))"])
            #expect(denied.status == .forbidden)
            #expect(try await client.get("/oauth/userinfo").status == .unauthorized)
        }
    }

    @Test("validateAuth: required demands the environment's Basic credentials")
    func validateAuthRequired() async throws {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(
            of: "    defaultAuthService: users", with: "    defaultAuthService: users\n    validateAuth: required")
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            let access = try #require(try await Flows.tokens(client)["access_token"] as? String)
            let bare = try await Flows.validate(client, access)
            #expect(bare.status == .unauthorized)
            #expect(bare.json["error"] as? String == "invalid_client")
            let authed = try await client.get("/oauth/validate?access_token=\(access)", headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            #expect(authed.status == .ok)
            let wrong = try await client.get("/oauth/validate?access_token=\(access)", headers: basicAuth(TestBroker.appKey, "nope-nope"))
            #expect(wrong.status == .unauthorized)
        }
    }
}
