import Foundation
import HummingbirdTesting
import Testing

/// docs/security.md, rules 11 and 14: a sign-in lives no longer than its identity source allows or
/// than `sessionMaxAge`; ID tokens carry only the claims their scopes ask for.
@Suite("Security: sign-in lifetime and what ID tokens share")
struct SessionLifetimeSecurityTests {
    static func authorize(_ client: any TestClientProtocol, sso: String) async throws -> TestResponse {
        try await client.get(InstanceFlows.authorizeQuery(clientId: AuthLinkFixture.appKey, redirect: TestBroker.redirect,
                                                          scope: "openid", prompt: "none"), headers: [.cookie: "idc_sso=\(sso)"])
    }

    static func exchange(_ client: any TestClientProtocol, _ code: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                                                   ("client_id", AuthLinkFixture.appKey), ("code_verifier", Flows.verifier)])
    }

    @Test("after the AuthLink refuses the account: no SSO code, no tokens for an earlier code, no userinfo")
    func identitySourceRefusal() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let first = try await InstanceFlows.browserSignIn(client, clientId: AuthLinkFixture.appKey, redirect: TestBroker.redirect,
                                                                  scope: "openid", username: "refuse-refresh", password: "pw")
                let sso = try #require(first.cookies["idc_sso"])
                let access = try #require(try await Self.exchange(client, try redirectCode(first)).json["access_token"] as? String)
                let pendingCode = try redirectCode(try await Self.authorize(client, sso: sso))
                // The upstream token runs out; its refresh is refused for good.
                broker.clock.advance(100)
                let silent = try await Self.authorize(client, sso: sso)
                #expect(queryItems(try #require(silent.location))["error"] == "login_required")
                let late = try await Self.exchange(client, pendingCode)
                #expect(late.json["error"] as? String == "invalid_grant")
                let userinfo = try await client.get("/oauth/userinfo", headers: [.authorization: "Bearer \(access)"])
                #expect(userinfo.status == .unauthorized)
            }
        }
    }

    @Test("sessionMaxAge bounds a session: neither refresh nor SSO reuse extends it")
    func sessionMaxAge() async throws {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(
            of: "        grantTtl: 60\n        tokenTtl: 600", with: "        grantTtl: 60\n        tokenTtl: 600\n        sessionMaxAge: 3600")
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            let answer = try await InstanceFlows.browserSignIn(client, clientId: TestBroker.appKey, redirect: TestBroker.redirect, scope: "openid")
            let sso = try #require(answer.cookies["idc_sso"])
            let tokens = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", try redirectCode(answer)), ("redirect_uri", TestBroker.redirect),
                ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)]).json
            var refresh = try #require(tokens["refresh_token"] as? String)
            for _ in 0..<5 {
                broker.clock.advance(600)
                let rotated = try await Flows.refresh(client, refresh)
                #expect(rotated.status == .ok)
                refresh = try #require(rotated.json["refresh_token"] as? String)
                // SSO reuse inside the bound still works (and must not push the end out either).
                let silent = try await client.get(InstanceFlows.authorizeQuery(clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                                              scope: "openid", prompt: "none"),
                                                  headers: [.cookie: "idc_sso=\(sso)"])
                _ = try await client.postForm("/oauth/token", [
                    ("grant_type", "authorization_code"), ("code", try redirectCode(silent)), ("redirect_uri", TestBroker.redirect),
                    ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)])
            }
            broker.clock.advance(601)   // 3601 s after sign-in
            #expect(try await Flows.refresh(client, refresh).json["error"] as? String == "invalid_grant")
            let after = try await client.get(InstanceFlows.authorizeQuery(clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                                         scope: "openid", prompt: "none"),
                                             headers: [.cookie: "idc_sso=\(sso)"])
            #expect(queryItems(try #require(after.location))["error"] == "login_required")
        }
    }

    @Test("scope=openid alone puts no email, name or groups in the ID token; each scope adds its own")
    func idTokenClaims() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            func claims(_ scope: String) async throws -> [String: Any] {
                let answer = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "alice"),
                                                                        ("password", "alicepw"), ("scope", scope)],
                                                       headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
                return jwtPayload(try #require(answer.json["id_token"] as? String))
            }
            let bare = try await claims("openid")
            #expect(bare["email"] == nil && bare["name"] == nil && bare["groups"] == nil && bare["preferred_username"] == nil)
            #expect(try await claims("openid email")["email"] as? String == "alice@example.org")
            let profile = try await claims("openid profile")
            #expect(profile["name"] as? String == "Alice" && profile["preferred_username"] as? String == "alice" && profile["email"] == nil)
            #expect(try await claims("openid groups")["groups"] as? [String] == ["admins", "staff"])
        }
    }
}
