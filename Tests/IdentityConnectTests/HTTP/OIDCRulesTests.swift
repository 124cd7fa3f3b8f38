import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// What OpenID Connect clients and the certification suite expect (docs/conformance.md):
/// `max_age`, the `claims` parameter, `email_verified`, `acr`, and the authorization endpoint
/// taking a browser's form POST.
@Suite("OpenID Connect rules")
struct OIDCRulesTests {
    static func query(_ extra: [(String, String)]) -> String {
        let base = [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                    ("scope", "openid"), ("state", "st"), ("nonce", "n1"), ("code_challenge", Flows.challenge),
                    ("code_challenge_method", "S256")]
        return "/oauth/auth?" + formEncode(base.filter { field in !extra.contains { $0.0 == field.0 } } + extra)
    }

    static func tokens(_ client: any TestClientProtocol, _ answer: TestResponse) async throws -> [String: Any] {
        try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", try redirectCode(answer)),
                                                   ("redirect_uri", TestBroker.redirect), ("client_id", TestBroker.appKey),
                                                   ("code_verifier", Flows.verifier)]).json
    }

    @Test("max_age: an SSO sign-in older than max_age is not reused (the form again), a recent one is; max_age=0 always asks; auth_time is in the id_token")
    func maxAge() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let first = try await APIFlows.signIn(client, path: Self.query([]))
            let sso = try #require(first.cookies["idc_sso"])
            let signedInAt = Int(broker.clock.now().timeIntervalSince1970)
            broker.clock.advance(2)
            let cookie: HTTPFields = [.cookie: "idc_sso=\(sso)"]
            let stale = try await client.get(Self.query([("max_age", "1")]), headers: cookie)
            #expect(stale.status == .ok && LoginFormFields(html: stale.text) != nil)
            let none = try await client.get(Self.query([("max_age", "1"), ("prompt", "none")]), headers: cookie)
            #expect(queryItems(try #require(none.location))["error"] == "login_required")
            #expect(try await client.get(Self.query([("max_age", "0")]), headers: cookie).status == .ok)
            let recent = try await client.get(Self.query([("max_age", "60")]), headers: cookie)
            #expect(recent.status == .found)
            let idToken = try #require(try await Self.tokens(client, recent)["id_token"] as? String)
            #expect(jwtPayload(idToken)["auth_time"] as? Int == signedInAt)
            let bad = try await client.get(Self.query([("max_age", "soon")]), headers: cookie)
            #expect(queryItems(try #require(bad.location))["error"] == "invalid_request")
        }
    }

    @Test("the claims parameter adds named claims to the id_token and userinfo; a malformed one is invalid_request")
    func claimsParameter() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let claims = #"{"userinfo":{"name":{"essential":true},"email_verified":null},"id_token":{"email":null,"groups":{"essential":false}}}"#
            let tokens = try await Self.tokens(client, try await APIFlows.signIn(client, path: Self.query([("claims", claims)])))
            let idToken = jwtPayload(try #require(tokens["id_token"] as? String))
            #expect(idToken["email"] as? String == "alice@example.org")
            #expect(idToken["groups"] as? [String] == ["admins", "staff"])
            #expect(idToken["name"] == nil)
            #expect(idToken["acr"] as? String == "urn:idconnect:acr:pwd")
            let access = try #require(tokens["access_token"] as? String)
            let userinfo = try await client.get("/oauth/userinfo", headers: [.authorization: "Bearer \(access)"]).json
            #expect(userinfo["name"] as? String == "Alice")
            #expect(userinfo["email_verified"] as? Bool == false)
            #expect(userinfo["email"] == nil)
            let bad = try await client.get(Self.query([("claims", "[1,2]")]))
            #expect(queryItems(try #require(bad.location))["error"] == "invalid_request")
            let discovery = try await client.get("/.well-known/openid-configuration").json
            #expect(discovery["claims_parameter_supported"] as? Bool == true)
            #expect(discovery["authorization_response_iss_parameter_supported"] as? Bool == true)
            #expect((discovery["acr_values_supported"] as? [String])?.contains("urn:idconnect:acr:mfa") == true)
            #expect(discovery["request_uri_parameter_supported"] as? Bool == false)
        }
    }

    @Test("userinfo: email_verified comes from the connector (static users: emailVerified in the configuration)")
    func emailVerified() async throws {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(
            of: "email: alice@example.org,", with: "email: alice@example.org, emailVerified: true,")
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            let tokens = try await Self.tokens(client, try await APIFlows.signIn(client, path: Self.query([("scope", "openid email")])))
            let access = try #require(tokens["access_token"] as? String)
            let userinfo = try await client.get("/oauth/userinfo", headers: [.authorization: "Bearer \(access)"]).json
            #expect(userinfo["email"] as? String == "alice@example.org" && userinfo["email_verified"] as? Bool == true)
            #expect(jwtPayload(try #require(tokens["id_token"] as? String))["email_verified"] as? Bool == true)
        }
    }

    @Test("a browser's form POST to /oauth/auth is an authorization request; the Kinvey SDKs' POST stays the automated grant")
    func browserPost() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let fields = [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("state", "st")]
            let browser = try await client.postForm("/oauth/auth", fields,
                                                    headers: [.accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"])
            #expect(browser.status == .ok && LoginFormFields(html: browser.text) != nil)
            let kinvey = try await client.postForm("/oauth/auth", fields, headers: [.accept: "application/json"])
            #expect(kinvey.json["temp_login_uri"] != nil)
            #expect(try await client.postForm("/oauth/auth", fields).json["temp_login_uri"] != nil)
            let mixed = try await client.postForm("/oauth/auth", fields, headers: [.accept: "application/json, text/html;q=0.5"])
            #expect(mixed.json["temp_login_uri"] != nil)
            // The Kinvey HTML5 SDK runs in a browser but asks for JSON: still the automated grant.
            let html5SDK = try await client.postForm("/oauth/auth", fields, headers: [.accept: "application/json", .userAgent: "Mozilla/5.0 (X11)"])
            #expect(html5SDK.json["temp_login_uri"] != nil)
            // A browser engine posting with Accept: */* (HtmlUnit, the certification suite's) gets the page.
            let star = try await client.postForm("/oauth/auth", fields, headers: [.accept: "*/*", .userAgent: "Mozilla/5.0 (X11)"])
            #expect(star.status == .ok && LoginFormFields(html: star.text) != nil)
            #expect(try await client.postForm("/oauth/auth", fields, headers: [.accept: "*/*", .userAgent: "curl/8.4"]).json["temp_login_uri"] != nil)
        }
    }

    @Test("access_type=online gets no refresh token; offline, offline_access or nothing get one as the auth service allows")
    func accessType() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            func refreshToken(_ extra: [(String, String)]) async throws -> Any? {
                try await Self.tokens(client, try await APIFlows.signIn(client, path: Self.query(extra)))["refresh_token"]
            }
            #expect(try await refreshToken([("access_type", "online")]) == nil)
            #expect(try await refreshToken([("access_type", "offline")]) != nil)
            #expect(try await refreshToken([("scope", "openid offline_access")]) != nil)
            #expect(try await refreshToken([]) != nil)
            for bad in [[("access_type", "sometimes")], [("access_type", "online"), ("scope", "openid offline_access")]] {
                let answer = try await client.get(Self.query(bad))
                #expect(queryItems(try #require(answer.location))["error"] == "invalid_request")
            }
            let pushed = try await client.postForm("/oauth/par", [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect),
                                                                  ("response_type", "code"), ("scope", "openid"), ("access_type", "online"),
                                                                  ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")],
                                                   headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            let uri = try #require(pushed.json["request_uri"] as? String)
            let answer = try await APIFlows.signIn(client, path: "/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("request_uri", uri)]))
            #expect(try await Self.tokens(client, answer)["refresh_token"] == nil)
        }
    }
}
