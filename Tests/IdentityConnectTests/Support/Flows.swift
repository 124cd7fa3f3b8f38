import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// Multi-step flows shared by the HTTP tests.
enum Flows {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-abcdefgh"
    static var challenge: String { PKCE.challenge(for: verifier) }

    /// The browser code flow up to the redirect: GET the form, POST credentials with the CSRF
    /// token and cookie. Returns the final Location.
    static func browserLogin(_ client: any TestClientProtocol, clientId: String = TestBroker.appKey,
                             username: String = "alice", password: String = "alicepw",
                             extra: [(String, String)] = [("scope", "openid email"), ("state", "s-123"), ("nonce", "n-456")],
                             pkce: Bool = true) async throws -> String {
        var query: [(String, String)] = [("client_id", clientId), ("redirect_uri", TestBroker.redirect), ("response_type", "code")]
        query += extra
        if pkce { query += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        let page = try await client.get("/oauth/auth?" + formEncode(query))
        #expect(page.status == .ok)
        let form = try #require(LoginFormFields(html: page.text))
        let cookie = try #require(page.cookies["idc_csrf"])
        let answer = try await client.postForm(pathOf(form.action),
                                               [("csrf_token", form.csrfToken), ("username", username), ("password", password)],
                                               headers: [.cookie: "idc_csrf=\(cookie)"])
        #expect(answer.status == .found)
        return try #require(answer.location)
    }

    /// The hosted login page of a new code-flow authorization with PKCE (its `idc_csrf` cookie in
    /// `cookies`).
    static func loginPage(_ client: any TestClientProtocol, clientId: String = TestBroker.appKey) async throws -> TestResponse {
        try await client.get("/oauth/auth?" + formEncode([
            ("client_id", clientId), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
            ("code_challenge", challenge), ("code_challenge_method", "S256")]))
    }

    /// The automated grant: POST /oauth/auth, then credentials to the temp login URI.
    static func automatedLogin(_ client: any TestClientProtocol, clientId: String = TestBroker.appKey,
                               username: String = "alice", password: String = "alicepw",
                               extra: [(String, String)] = [], prefix: String = "") async throws -> String {
        let start = try await client.postForm("\(prefix)/oauth/auth",
                                              [("client_id", clientId), ("redirect_uri", TestBroker.redirect),
                                               ("response_type", "code")] + extra)
        #expect(start.status == .ok)
        let tempLogin = try #require(start.json["temp_login_uri"] as? String)
        let answer = try await client.postForm(pathOf(tempLogin), [
            ("client_id", clientId), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
            ("username", username), ("password", password)])
        #expect(answer.status == .found)
        return try #require(answer.location)
    }

    /// Exchanges a code with Basic client authentication (as the Kinvey SDKs do).
    static func exchange(_ client: any TestClientProtocol, code: String, clientId: String = TestBroker.appKey,
                         verifier: String? = nil, authenticate: Bool = true) async throws -> TestResponse {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                      ("client_id", clientId)]
        if let verifier { fields.append(("code_verifier", verifier)) }
        return try await client.postForm("/oauth/token", fields,
                                         headers: authenticate ? basicAuth(TestBroker.appKey, TestBroker.appSecret) : [:])
    }

    /// A full sign-in ending with tokens.
    static func tokens(_ client: any TestClientProtocol, clientId: String = TestBroker.appKey) async throws -> [String: Any] {
        let location = try await automatedLogin(client, clientId: clientId)
        let code = try #require(queryItems(location)["code"])
        let response = try await exchange(client, code: code, clientId: clientId)
        #expect(response.status == .ok)
        return response.json
    }
}

extension Flows {
    static func refresh(_ client: any TestClientProtocol, _ token: String, clientId: String = TestBroker.appKey,
                        extra: [(String, String)] = []) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientId)] + extra,
                                  headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
    }

    static func validate(_ client: any TestClientProtocol, _ token: String) async throws -> TestResponse {
        try await client.get("/oauth/validate?access_token=\(RedirectURL.encode(token))")
    }

    static func introspect(_ client: any TestClientProtocol, _ token: String) async throws -> [String: Any] {
        try await client.postForm("/oauth/introspect", [("token", token)], headers: basicAuth(TestBroker.appKey, TestBroker.appSecret)).json
    }
}
