import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// API resources and audiences (docs/api-resources.md; RFC 8707, RFC 9068).
@Suite("API resources and audiences")
struct APIResourcesTests {
    @Test("access tokens carry aud of the granted API scopes (array when several), nbf = iat, email and roles by scope; MIC answers unchanged")
    func claims() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files())
        try await broker.withClient { client in
            let answer = try await APIFlows.password(client, scope: "openid api:a api:b email roles")
            #expect(answer.status == .ok)
            let access = try #require(answer.json["access_token"] as? String)
            let claims = jwtPayload(access)
            #expect(claims["aud"] as? [String] == [APIFlows.apiA, APIFlows.apiB])
            #expect(claims["nbf"] as? Int == claims["iat"] as? Int && claims["nbf"] != nil)
            #expect(claims["email"] as? String == "alice@example.org")
            #expect(claims["roles"] as? [String] == ["admins", "staff"])
            #expect(answer.json["scope"] as? String == "openid api:a api:b email roles")
            #expect(try await Flows.validate(client, access).json["audience"] as? String == TestBroker.appKey)
            #expect(try await Flows.introspect(client, access)["aud"] as? [String] == [APIFlows.apiA, APIFlows.apiB])

            let plain = try #require(try await APIFlows.password(client, scope: "openid").json["access_token"] as? String)
            #expect(jwtPayload(plain)["aud"] as? String == TestBroker.appKey)
            #expect(jwtPayload(plain)["email"] == nil && jwtPayload(plain)["roles"] == nil)
            let one = try #require(try await APIFlows.password(client, scope: "api:b").json["access_token"] as? String)
            #expect(jwtPayload(one)["aud"] as? String == APIFlows.apiB)
        }
    }

    @Test("scopes: an undeclared or disallowed API scope is invalid_scope; other unknown scopes are dropped")
    func scopes() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files())
        try await broker.withClient { client in
            for refused in ["api:admin", "api:unknown", "openid api:a api:nope"] {
                let answer = try await APIFlows.password(client, scope: refused)
                #expect(answer.status == .badRequest && answer.json["error"] as? String == "invalid_scope", "\(refused)")
            }
            #expect(try await APIFlows.password(client, scope: "openid unknown api:a").json["scope"] as? String == "openid api:a")
            let page = try await client.get("/oauth/auth?" + APIFlows.authorizeQuery(scope: "openid api:admin"))
            #expect(queryItems(try #require(page.location))["error"] == "invalid_scope")
            let discovery = try await client.get("/.well-known/openid-configuration").json
            let supported = try #require(discovery["scopes_supported"] as? [String])
            #expect(["api:a", "api:b", "api:admin", "roles"].allSatisfy(supported.contains))
        }
    }

    @Test("resource narrows aud; a resource the scope does not grant, unknown or relative, is invalid_target")
    func resources() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files())
        try await broker.withClient { client in
            let narrowed = try await APIFlows.password(client, scope: "api:a api:b", resources: [APIFlows.apiA])
            #expect(APIFlows.audiences(try #require(narrowed.json["access_token"] as? String)) == [APIFlows.apiA])
            let both = try await APIFlows.password(client, scope: "api:a api:b", resources: [APIFlows.apiB, APIFlows.apiA, APIFlows.apiB])
            #expect(APIFlows.audiences(try #require(both.json["access_token"] as? String)) == [APIFlows.apiB, APIFlows.apiA])
            for (scope, resource) in [("api:a", APIFlows.apiB), ("api:a", "https://elsewhere.example.com"), ("api:a", "/relative"),
                                      ("api:a", APIFlows.apiA + "#fragment"), ("openid", APIFlows.apiA)] {
                let answer = try await APIFlows.password(client, scope: scope, resources: [resource])
                #expect(answer.status == .badRequest && answer.json["error"] as? String == "invalid_target", "\(scope) \(resource)")
            }
            let page = try await client.get("/oauth/auth?" + APIFlows.authorizeQuery(scope: "api:a", resources: [APIFlows.apiB]))
            #expect(queryItems(try #require(page.location))["error"] == "invalid_target")
            #expect(queryItems(try #require(page.location))["state"] == "st")
        }
    }

    @Test("the code flow: resource at authorization bounds the token request, which may narrow further; refresh narrows, never widens")
    func codeFlowAndRefresh() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files())
        try await broker.withClient { client in
            let path = "/oauth/auth?" + APIFlows.authorizeQuery(scope: "openid api:a api:b", resources: [APIFlows.apiA, APIFlows.apiB])
            // Narrower at the token request: fine. Outside the authorization's targets: refused.
            var tokens = try await APIFlows.exchange(client, try await APIFlows.signIn(client, path: path), resources: [APIFlows.apiB])
            #expect(APIFlows.audiences(try #require(tokens.json["access_token"] as? String)) == [APIFlows.apiB])
            let outside = try await APIFlows.exchange(client, try await APIFlows.signIn(client, path: "/oauth/auth?" +
                APIFlows.authorizeQuery(scope: "openid api:a api:b", resources: [APIFlows.apiA])), resources: [APIFlows.apiB])
            #expect(outside.json["error"] as? String == "invalid_target")

            tokens = try await APIFlows.exchange(client, try await APIFlows.signIn(client, path: path))
            #expect(APIFlows.audiences(try #require(tokens.json["access_token"] as? String)) == [APIFlows.apiA, APIFlows.apiB])
            var refreshToken = try #require(tokens.json["refresh_token"] as? String)
            let narrowed = try await Flows.refresh(client, refreshToken, extra: [("resource", APIFlows.apiA)])
            #expect(APIFlows.audiences(try #require(narrowed.json["access_token"] as? String)) == [APIFlows.apiA])
            refreshToken = try #require(narrowed.json["refresh_token"] as? String)
            let again = try await Flows.refresh(client, refreshToken)
            #expect(APIFlows.audiences(try #require(again.json["access_token"] as? String)) == [APIFlows.apiA, APIFlows.apiB])
            let widened = try await Flows.refresh(client, try #require(again.json["refresh_token"] as? String),
                                                  extra: [("resource", APIFlows.admin)])
            #expect(widened.json["error"] as? String == "invalid_target")
        }
    }

    @Test("request objects and foreign request_uri values are refused to the client, never ignored")
    func requestObjects() async throws {
        let broker = try await TestBroker.make(files: APIFlows.files())
        try await broker.withClient { client in
            let object = try await client.get("/oauth/auth?" + APIFlows.authorizeQuery(scope: "openid", extra: [("request", "eyJhbGciOiJub25lIn0.e30.")]))
            #expect(queryItems(try #require(object.location))["error"] == "request_not_supported")
            #expect(queryItems(try #require(object.location))["state"] == "st")
            let uri = try await client.get("/oauth/auth?" + APIFlows.authorizeQuery(scope: "openid", extra: [("request_uri", "https://rp.example.com/r")]))
            #expect(queryItems(try #require(uri.location))["error"] == "request_uri_not_supported")
        }
    }

    @Test("app links are served exactly as configured, as application/json without a redirect; absent ones are 404")
    func appLinks() async throws {
        var files = APIFlows.files()
        files["server.yaml"] = """
            server:
              issuer: http://127.0.0.1:8080
              appLinks:
                apple: { applinks: { details: [ { appIDs: [ "ABCDE12345.com.example.app" ], components: [ { "/": "/oauth/*" } ] } ] } }
            """
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            let apple = try await client.get("/.well-known/apple-app-site-association")
            #expect(apple.status == .ok)
            #expect(apple.headers[.contentType]?.hasPrefix("application/json") == true)
            let details = ((apple.json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])?.first
            #expect(details?["appIDs"] as? [String] == ["ABCDE12345.com.example.app"])
            #expect(try await client.get("/.well-known/assetlinks.json").status == .notFound)
        }
    }
}

@Suite("API resources: configuration")
struct APIResourceConfigTests {
    @Test("apiResources and allowedScopes are checked; an environment's declaration wins over its organization's")
    func configuration() async throws {
        let problems = try ConfigLoaderTests.problems(["x.yaml": """
            organizations:
              - id: org
                apiResources: [ { scope: "api:shared", audience: "https://org.example.com" } ]
                authServices: []
            environments:
              - appKey: kid_x
                organization: org
                apiResources:
                  - { scope: "api:a", audience: "not a uri" }
                  - { scope: "api:a", audience: "https://a.example.com" }
                  - { scope: "two words", audience: "https://b.example.com#x" }
                authServices:
            \(ConfigLoaderTests.service("s1", extra: #"        allowedScopes: [ "api:shared", "api:missing" ]"#))
            """])
        for expected in ["absolute URI without a fragment", "declared twice", "one scope token", "'api:missing' is not declared"] {
            #expect(problems.contains { $0.description.contains(expected) }, "\(expected): \(problems)")
        }
        #expect(!problems.contains { $0.description.contains("'api:shared'") })

        // A combining mark after `#` makes one Character of the two, which `String.contains("#")`
        // did not find: the audience was accepted with a fragment.
        for audience in ["https://c.example.com/#\u{301}", "https://c.example.com/x#%94"] {
            let marked = try ConfigLoaderTests.problems(["y.yaml": """
                environments:
                  - appKey: kid_y
                    apiResources: [ { scope: "api:c", audience: "\(audience)" } ]
                    authServices:
                \(ConfigLoaderTests.service("s1"))
                """])
            #expect(marked.contains { $0.description.contains("audience") && $0.description.contains("without a fragment") },
                    "\(audience.unicodeScalars.map(\.description)): \(marked)")
        }

        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(of: "  - appKey: \(TestBroker.appKey)\n",
            with: "  - appKey: \(TestBroker.appKey)\n    organization: org\n    apiResources: [ { scope: \"api:s\", audience: \"https://env.example.com\" } ]\n")
        files["org.yaml"] = "organizations:\n  - id: org\n    authServices: []\n    apiResources:\n      - { scope: \"api:s\", audience: \"https://org.example.com\" }\n      - { scope: \"api:o\", audience: \"https://only-org.example.com\" }\n"
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            let token = try #require(try await APIFlows.password(client, scope: "api:s api:o").json["access_token"] as? String)
            #expect(APIFlows.audiences(token) == ["https://env.example.com", "https://only-org.example.com"])
        }
    }
}
