import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// An environment with three APIs; the `users` service may ask for two of them.
enum APIFlows {
    static let apiA = "https://api-a.example.com"
    static let apiB = "https://api-b.example.com"
    static let admin = "https://admin.example.com"

    static func files(requirePar: Bool = false) -> [String: String] {
        var files = TestBroker.defaultConfig()
        var environment = files["environments/test.yaml"]!
        environment = environment.replacingOccurrences(of: "        grantTtl: 60\n", with: """
                    grantTtl: 60
                    allowedScopes: [ "api:a", "api:b" ]
                    requirePar: \(requirePar)

            """)
        environment += """

                apiResources:
                  - { scope: "api:a", audience: "\(apiA)" }
                  - { scope: "api:b", audience: "\(apiB)" }
                  - { scope: "api:admin", audience: "\(admin)" }
            """
        files["environments/test.yaml"] = environment
        return files
    }

    /// A password grant; the JSON answer.
    static func password(_ client: any TestClientProtocol, scope: String, resources: [String] = [],
                         clientId: String = TestBroker.appKey) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "alice"), ("password", "alicepw"),
                                                   ("scope", scope), ("client_id", clientId)] + resources.map { ("resource", $0) },
                                  headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
    }

    /// The `aud` of an access token as a list (a string is one audience).
    static func audiences(_ token: String) -> [String] {
        let aud = jwtPayload(token)["aud"]
        return (aud as? [String]) ?? (aud as? String).map { [$0] } ?? []
    }

    /// The authorization URL's query for the default client with PKCE.
    static func authorizeQuery(scope: String, resources: [String] = [], extra: [(String, String)] = []) -> String {
        formEncode([("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                    ("scope", scope), ("state", "st"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
                   + resources.map { ("resource", $0) } + extra)
    }

    /// Signs alice in through the hosted form of `query`'s request; the final answer.
    static func signIn(_ client: any TestClientProtocol, path: String) async throws -> TestResponse {
        let page = try await client.get(path)
        let form = try #require(LoginFormFields(html: page.text), "\(page.status) \(page.text.prefix(300))")
        let cookie = try #require(page.cookies["idc_csrf"])
        return try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "alicepw")],
                                         headers: [.cookie: "idc_csrf=\(cookie)"])
    }

    static func exchange(_ client: any TestClientProtocol, _ answer: TestResponse, resources: [String] = []) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", try redirectCode(answer)),
                                                   ("redirect_uri", TestBroker.redirect), ("client_id", TestBroker.appKey),
                                                   ("code_verifier", Flows.verifier)] + resources.map { ("resource", $0) })
    }
}
