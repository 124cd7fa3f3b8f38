import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("SSO cookie, prompt, logout")
struct SSOAndLogoutTests {
    /// Two environments sharing one organization auth service, plus the default test environment.
    static let files: [String: String] = {
        var files = TestBroker.defaultConfig()
        let users = "users: [ { username: alice, passwordHash: \"\(TestBroker.hashes["alice"]!)\" } ]"
        files["environments/shared.yaml"] = """
        organizations:
          - id: acme
            authServices:
              - id: corp
                redirectUri: [ "\(TestBroker.redirect)" ]
                provider: { type: static, options: { \(users) } }
        environments:
          - { appKey: kid_one, appSecret: one-secret-1234, organization: acme, defaultAuthService: corp }
          - { appKey: kid_two, appSecret: two-secret-1234, organization: acme, defaultAuthService: corp }
        """
        return files
    }()

    static func authorize(_ client: any TestClientProtocol, _ clientId: String, prompt: String? = nil, sso: String?) async throws -> TestResponse {
        var query = [("client_id", clientId), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("state", "st"),
                     ("scope", "openid"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
        if let prompt { query.append(("prompt", prompt)) }
        return try await client.get("/oauth/auth?" + formEncode(query), headers: sso.map { [.cookie: "idc_sso=\($0)"] } ?? [:])
    }

    /// Signs in to kid_one through the hosted page and returns the SSO cookie and the code.
    static func signInOne(_ client: any TestClientProtocol) async throws -> (sso: String, code: String) {
        let page = try await authorize(client, "kid_one", sso: nil)
        let form = try #require(LoginFormFields(html: page.text))
        let csrf = try #require(page.cookies["idc_csrf"])
        let answer = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "alicepw")],
                                               headers: [.cookie: "idc_csrf=\(csrf)"])
        let sso = try #require(answer.cookies["idc_sso"])
        let location = try #require(answer.location)
        return (sso, try #require(queryItems(location)["code"]))
    }

    @Test("a second app on the same auth service signs in without the form; prompt=login forces it; prompt=none works")
    func sso() async throws {
        let broker = try await TestBroker.make(files: Self.files)
        try await broker.withClient { client in
            let (sso, _) = try await Self.signInOne(client)
            let second = try await Self.authorize(client, "kid_two", sso: sso)
            #expect(second.status == .found)
            let location = try #require(second.location)
            #expect(location.hasPrefix(TestBroker.redirect + "?state=st&iss=\(TestBroker.encodedIssuer)&code="))
            let code = try #require(queryItems(location)["code"])
            let exchange = try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", TestBroker.redirect), ("client_id", "kid_two"), ("code_verifier", Flows.verifier)])
            #expect(exchange.status == .ok)
            let forced = try await Self.authorize(client, "kid_two", prompt: "login", sso: sso)
            #expect(forced.status == .ok)
            #expect(LoginFormFields(html: forced.text) != nil)
            let silent = try await Self.authorize(client, "kid_two", prompt: "none", sso: sso)
            #expect(queryItems(try #require(silent.location))["code"] != nil)
            // Another auth service is not covered by this SSO sign-in.
            let other = try await Self.authorize(client, TestBroker.appKey, prompt: "none", sso: sso)
            #expect(queryItems(try #require(other.location))["error"] == "login_required")
            // One character changed (a token that starts with "A" gets "B": it was the real cookie
            // once in 64 runs).
            let forged = try await Self.authorize(client, "kid_two", prompt: "none",
                                                  sso: (sso.hasPrefix("A") ? "B" : "A") + String(sso.dropFirst()))
            #expect(queryItems(try #require(forged.location))["error"] == "login_required")
        }
    }

    @Test("logout ends the session and SSO: tokens die, prompt=none answers login_required; redirect only to registered URIs")
    func logout() async throws {
        let broker = try await TestBroker.make(files: Self.files)
        try await broker.withClient { client in
            let (sso, code) = try await Self.signInOne(client)
            let tokens = try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", TestBroker.redirect), ("client_id", "kid_one"), ("code_verifier", Flows.verifier)]).json
            let idToken = try #require(tokens["id_token"] as? String)
            let access = try #require(tokens["access_token"] as? String)

            let unregistered = try await client.get("/oauth/logout?" + formEncode([("id_token_hint", idToken), ("post_logout_redirect_uri", "https://evil.example/")]))
            #expect(unregistered.status == .badRequest)
            #expect(unregistered.location == nil)
            let forgedHint = try await client.get("/oauth/logout?id_token_hint=a.b.c")
            #expect(forgedHint.status == .badRequest)

            let out = try await client.get("/oauth/logout?" + formEncode([("id_token_hint", idToken), ("post_logout_redirect_uri", TestBroker.redirect), ("state", "bye")]),
                                           headers: [.cookie: "idc_sso=\(sso)"])
            #expect(out.status == .found)
            #expect(out.location == TestBroker.redirect + "?state=bye")
            #expect(out.cookies["idc_sso"] == "")
            #expect(try await client.get("/oauth/validate?access_token=\(access)").status == .unauthorized)
            #expect(try await Flows.introspect(client, access)["active"] as? Bool == false)
            let silent = try await Self.authorize(client, "kid_two", prompt: "none", sso: sso)
            #expect(queryItems(try #require(silent.location))["error"] == "login_required")
            // Without an ID token hint for a session of this browser, the person is asked first
            // (docs/security.md, rule 7).
            let page = try await client.get("/oauth/logout")
            #expect(page.status == .ok)
            #expect(page.text.contains("Sign out?"))
        }
    }
}

@Suite("Login throttling (docs/protocol.md, \"Throttling and rate limits\")")
struct ThrottleTests {
    /// One password-grant attempt for the default test client.
    static func passwordGrant(_ client: any TestClientProtocol, _ user: String, _ password: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", user), ("password", password)],
                                  headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
    }

    @Test("after 5 failures in 5 minutes one attempt per 30 s: 429 on the API, then it lifts")
    func throttling() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            func attempt(_ user: String, _ password: String) async throws -> TestResponse {
                try await Self.passwordGrant(client, user, password)
            }
            for _ in 0..<5 { #expect(try await attempt("bob", "wrong").status == .badRequest) }
            let throttled = try await attempt("bob", "bobpw")
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.json["error"] as? String == "access_denied")
            // The same for a username that does not exist: nothing tells them apart.
            for _ in 0..<5 { _ = try await attempt("nobody", "wrong") }
            let unknown = try await attempt("nobody", "x")
            #expect(unknown.status == .tooManyRequests)
            #expect(unknown.json["error_description"] as? String == throttled.json["error_description"] as? String)
            broker.clock.advance(31)
            #expect(try await attempt("bob", "bobpw").status == .ok)
            // The login page shows it in words.
            let location = try await Flows.automatedLogin(client, username: "nobody", password: "x")
            #expect(queryItems(location)["error"] == "access_denied")
        }
    }

    @Test("one address: typos of a few people pass; 50 failures across usernames throttle every username from it")
    func addressThrottling() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient(network: true) { client in
            func attempt(_ user: String, _ password: String) async throws -> TestResponse {
                try await Self.passwordGrant(client, user, password)
            }
            // Ten people behind one NAT each mistype twice: nobody is held back.
            for index in 0..<10 { for _ in 0..<2 { _ = try await attempt("typo\(index)", "wrong") } }
            #expect(try await attempt("alice", "alicepw").status == .ok)
            // A guessing run across usernames from the same address trips the address limit.
            for index in 0..<30 { _ = try await attempt("guess\(index)", "wrong") }
            let blocked = try await attempt("bob", "bobpw")
            #expect(blocked.status == .tooManyRequests)
            broker.clock.advance(31)
            #expect(try await attempt("bob", "bobpw").status == .ok)
        }
    }
}
