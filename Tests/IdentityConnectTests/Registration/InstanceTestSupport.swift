import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// A registered app instance as the app holds it: its credentials and the broker's answer.
struct RegisteredInstance {
    var clientId: String
    var secret: String
    var registrationToken: String
    var registrationPath: String

    var basic: HTTPFields { basicAuth(clientId, secret) }
}

/// Steps of the instance flows, done through HTTP the way a mobile app and its browser do them.
enum InstanceFlows {
    /// Registers an instance with the default statement (overridable claims).
    static func register(_ client: any TestClientProtocol, broker: TestBroker,
                         claims: [String: Any] = [:]) async throws -> RegisteredInstance {
        let statement = try RegistrationTests.statement(exp: broker.clock.now() + 600, claims: claims)
        let answer = try await RegistrationTests.register(client, body: try RegistrationTests.body(statement))
        #expect(answer.status == .created)
        let json = answer.json
        return RegisteredInstance(
            clientId: try #require(json["client_id"] as? String), secret: try #require(json["client_secret"] as? String),
            registrationToken: try #require(json["registration_access_token"] as? String),
            registrationPath: pathOf(try #require(json["registration_client_uri"] as? String)))
    }

    static func authorizeQuery(clientId: String, redirect: String, scope: String, prompt: String? = nil) -> String {
        var query = [("client_id", clientId), ("redirect_uri", redirect), ("response_type", "code"), ("state", "st"),
                     ("scope", scope), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
        if let prompt { query.append(("prompt", prompt)) }
        return "/oauth/auth?" + formEncode(query)
    }

    /// The hosted-page sign-in with PKCE; returns the final answer (a redirect on success) and
    /// the SSO cookie it set. `cookies` are sent along (an existing SSO cookie, say).
    static func browserSignIn(_ client: any TestClientProtocol, clientId: String, redirect: String = TestBroker.nativeRedirect,
                              scope: String = "openid native", username: String = "alice", password: String = "alicepw",
                              cookies: String? = nil, cookiePrefix: String = "") async throws -> TestResponse {
        let page = try await client.get(authorizeQuery(clientId: clientId, redirect: redirect, scope: scope, prompt: "login"),
                                        headers: cookies.map { [.cookie: $0] } ?? [:])
        #expect(page.status == .ok)
        let form = try #require(LoginFormFields(html: page.text))
        let csrf = try #require(page.cookies[cookiePrefix + "idc_csrf"])
        let cookieHeader = ["\(cookiePrefix)idc_csrf=\(csrf)", cookies].compactMap { $0 }.joined(separator: "; ")
        return try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", username), ("password", password)],
                                         headers: [.cookie: cookieHeader])
    }

    /// Signs in through the instance and redeems the code with its Basic credentials and PKCE.
    static func signIn(_ client: any TestClientProtocol, _ instance: RegisteredInstance, scope: String = "openid native",
                       username: String = "alice", password: String = "alicepw") async throws -> TestResponse {
        let answer = try await browserSignIn(client, clientId: instance.clientId, scope: scope, username: username, password: password)
        #expect(answer.status == .found)
        let location = try #require(answer.location)
        let code = try #require(queryItems(location)["code"])
        return try await client.postForm("/oauth/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.nativeRedirect),
            ("client_id", instance.clientId), ("code_verifier", Flows.verifier)], headers: instance.basic)
    }

    /// `grant_type=client_credentials` with the instance's Basic credentials.
    static func relogin(_ client: any TestClientProtocol, _ instance: RegisteredInstance, secret: String? = nil,
                        extra: [(String, String)] = []) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "client_credentials")] + extra,
                                  headers: basicAuth(instance.clientId, secret ?? instance.secret))
    }
}
