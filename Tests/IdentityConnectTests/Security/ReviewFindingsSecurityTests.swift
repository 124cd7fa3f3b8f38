import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Findings of an independent review of the security rules, each with its regression test.
@Suite("Security: review findings")
struct ReviewFindingsSecurityTests {
    @Test("with an https issuer a plain `css` cookie (plantable) is ignored; the __Host-css one works and its sign-in stands alone")
    func appToWebCookie() async throws {
        var files = RegistrationTests.registrationFiles()
        files["server.yaml"] = "server:\n  issuer: https://login.example.com\n"
        let broker = try await RegistrationTests.make(files: files)
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let answer = try await InstanceFlows.browserSignIn(client, clientId: instance.clientId, cookiePrefix: "__Host-")
            let code = try redirectCode(answer)
            let tokens = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.nativeRedirect),
                ("client_id", instance.clientId), ("code_verifier", Flows.verifier), ("scope", "openid native")], headers: instance.basic)
            let css = try #require(tokens.json["css"] as? String)
            let query = InstanceFlows.authorizeQuery(clientId: TestBroker.appKey, redirect: TestBroker.redirect, scope: "openid", prompt: "none")
            let planted = try await client.get(query, headers: [.cookie: "css=\(css)"])
            #expect(queryItems(try #require(planted.location))["error"] == "login_required")
            let genuine = try await client.get(query, headers: [.cookie: "__Host-css=\(css)"])
            #expect(queryItems(try #require(genuine.location))["code"] != nil)
            #expect(genuine.headers[values: .setCookie].contains { $0.hasPrefix("__Host-css=;") })
        }
    }

    @Test("a held-back address spends nobody's username budget")
    func addressFirst() async throws {
        var files = TestBroker.defaultConfig()
        files["server.yaml"] = files["server.yaml"]!.replacingOccurrences(of: "server:\n", with: "server:\n  trustedProxies: [ 127.0.0.1 ]\n")
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient(network: true) { client in
            func attempt(_ user: String, _ password: String, from address: String) async throws -> TestResponse {
                try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", user), ("password", password)],
                                          headers: basicAuth(TestBroker.appKey, TestBroker.appSecret)
                                            .merging([HTTPField.Name("X-Forwarded-For")!: address]))
            }
            for index in 0..<50 { _ = try await attempt("guess\(index)", "wrong", from: "198.51.100.7") }
            for _ in 0..<10 {
                #expect(try await attempt("bob", "wrong", from: "198.51.100.7").status == .tooManyRequests)
            }
            #expect(try await attempt("bob", "bobpw", from: "203.0.113.9").status == .ok)
        }
    }

    @Test("a sign-in at a source that cannot be re-checked (static users) ends at refreshTtl, however often it refreshes")
    func nonRefreshingSourceEndsAtRefreshTtl() async throws {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(
            of: "        grantTtl: 60\n        tokenTtl: 600", with: "        grantTtl: 60\n        tokenTtl: 600\n        refreshTtl: 1200")
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            var refresh = try #require(try await Flows.tokens(client)["refresh_token"] as? String)
            broker.clock.advance(600)
            refresh = try #require(try await Flows.refresh(client, refresh).json["refresh_token"] as? String)
            broker.clock.advance(601)
            #expect(try await Flows.refresh(client, refresh).json["error"] as? String == "invalid_grant")
        }
    }
}
