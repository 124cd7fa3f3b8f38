import Foundation
import HTTPTypes
import HummingbirdTesting
import IdentityCore
import OAuthConnectors
import StaticConnector
import Testing

/// Brokers whose auth services sign in through a real upstream provider (django-oauth-toolkit,
/// LemonLDAP::NG), and the browser round trip through the provider's login form.
enum OAuthPeerFixture {
    static let appKey = "kid_oauth"
    static let secret = "oauth-env-secret"
    static let registry = ConnectorRegistry([StaticConnectorFactory(), OAuthConnectorFactory()])
    static let callbackPrefix = "http://127.0.0.1:8080/oauth/callback"

    /// The peer's issuer from the environment (set by scripts/test.sh), or nil to skip.
    static func issuer(_ variable: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return value
    }

    /// One environment with the given auth services (YAML list items, already indented).
    static func files(_ services: String) -> [String: String] {
        var files = TestBroker.defaultConfig()
        files["environments/oauth.yaml"] = """
        environments:
          - appKey: \(appKey)
            appSecret: \(secret)
            authServices:
        \(services)
        """
        return files
    }

    /// An auth service item with the given provider type and options (flow-style YAML map body).
    static func service(_ id: String, type: String, remoteService: String? = nil, options: String) -> String {
        """
              - id: \(id)
                redirectUri: [ "\(TestBroker.redirect)" ]
                tokenTtl: 86400   # longer than any clock jump the tests make
                provider:
                  type: \(type)
        \(remoteService.map { "          remoteService: \"\($0)\"\n" } ?? "")          options: { \(options) }
                  allowedAttributes: [ id, audience, client_token, email, name, groups, preferred_username ]
        """
    }

    /// Starts a sign-in at the broker for `authService`: the upstream URL and the browser's CSRF cookie.
    static func start(_ client: any TestClientProtocol, authService: String, state: String = "app-state") async throws -> (upstream: String, cookie: String) {
        let response = try await client.get("/oauth/auth?" + formEncode([
            ("client_id", "\(appKey).\(authService)"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
            ("state", state), ("scope", "openid")]))
        #expect(response.status == .found)
        return (try #require(response.location), try #require(response.cookies["idc_csrf"]))
    }

    /// Sends the provider's redirect to the broker's callback; returns the broker's answer.
    static func callback(_ client: any TestClientProtocol, _ url: String, cookie: String) async throws -> TestResponse {
        let query = URLComponents(string: url)?.percentEncodedQuery ?? ""
        return try await client.get("/oauth/callback?" + query, headers: [.cookie: "idc_csrf=\(cookie)"])
    }

    /// The whole browser sign-in through the provider's login form, ending with the broker's tokens.
    static func signIn(_ client: any TestClientProtocol, authService: String, username: String, password: String,
                       browser: UpstreamBrowser = UpstreamBrowser()) async throws -> [String: Any] {
        let (upstream, cookie) = try await start(client, authService: authService)
        let back = try await browser.signIn(start: upstream, stopPrefix: callbackPrefix, username: username, password: password)
        let landed = try await callback(client, back, cookie: cookie)
        let location = try #require(landed.location)
        let code = try #require(queryItems(location)["code"], "no code in \(location)")
        let tokens = try await exchange(client, code: code, authService: authService)
        #expect(tokens.status == .ok)
        return tokens.json
    }

    static func exchange(_ client: any TestClientProtocol, code: String, authService: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code),
                                                   ("redirect_uri", TestBroker.redirect), ("client_id", "\(appKey).\(authService)")],
                                  headers: basicAuth(appKey, secret))
    }

    static func passwordGrant(_ client: any TestClientProtocol, authService: String, username: String, password: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("client_id", "\(appKey).\(authService)"),
                                                   ("username", username), ("password", password), ("scope", "openid")],
                                  headers: basicAuth(appKey, secret))
    }

    static func refresh(_ client: any TestClientProtocol, _ token: String, authService: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", token),
                                                   ("client_id", "\(appKey).\(authService)")], headers: basicAuth(appKey, secret))
    }

    /// `/oauth/validate`'s JSON for a MIC access token.
    static func validate(_ client: any TestClientProtocol, _ token: String) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        let response = try await Flows.validate(client, token)
        return (response.status, response.json)
    }

    /// The upstream access token inside `client_token`.
    static func upstreamToken(_ json: [String: Any]) -> String? {
        (json["client_token"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls the provider's userinfo endpoint with an upstream access token: is the token real and live?
    static func userInfo(_ url: String, accessToken: String) async throws -> (status: Int, json: [String: Any]) {
        let page = try await UpstreamBrowser().request(url, headers: [("Authorization", "Bearer \(accessToken)")])
        return (page.status, (try? JSONSerialization.jsonObject(with: Data(page.body.utf8))) as? [String: Any] ?? [:])
    }
}
