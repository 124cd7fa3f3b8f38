import Foundation
import HummingbirdTesting
import Testing

/// An app that already holds tokens from the upstream OpenID provider (its own registration there,
/// `broker-ropc`) exchanges them for the broker's (docs/token-exchange.md): an access token checked
/// at the provider's userinfo and kept as the upstream token; an ID token checked against the
/// provider's keys, issuer and `upstreamAudiences`. Against django-oauth-toolkit.
@Suite("Token exchange: the provider's own tokens in, the broker's out (django-oauth-toolkit)",
       .enabled(if: OAuthPeerFixture.issuer("IDCONNECT_OIDC_ISSUER") != nil,
                "IDCONNECT_OIDC_ISSUER is not set: start scripts/peers/oidc-op-start.sh (scripts/test.sh does)"))
struct UpstreamTokenInExchangeTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessType = "urn:ietf:params:oauth:token-type:access_token"
    static let idType = "urn:ietf:params:oauth:token-type:id_token"
    static var issuer: String { OAuthPeerFixture.issuer("IDCONNECT_OIDC_ISSUER") ?? "" }

    static func broker() async throws -> TestBroker {
        let service = OAuthPeerFixture.service("oidc", type: "openid-connect", options: """
            issuerId: "\(issuer)", clientId: broker, clientSecret: broker-secret, scope: "openid profile email groups"
            """) + "\n        tokenExchange: { upstreamTokens: true, upstreamAudiences: [ broker-ropc, broker ] }"
        let narrow = OAuthPeerFixture.service("narrow", type: "openid-connect", options: """
            issuerId: "\(issuer)", clientId: broker, clientSecret: broker-secret, scope: "openid profile"
            """) + "\n        tokenExchange: { upstreamTokens: true, upstreamAudiences: [ broker-ropc ] }"
        let plain = OAuthPeerFixture.service("closed", type: "openid-connect", options: """
            issuerId: "\(issuer)", clientId: broker, clientSecret: broker-secret, scope: "openid profile"
            """)
        return try await TestBroker.make(files: OAuthPeerFixture.files([service, plain, narrow].joined(separator: "\n")),
                                         registry: OAuthPeerFixture.registry)
    }

    /// The app's own tokens from the provider (its password grant as `broker-ropc`).
    static func providerTokens() async throws -> [String: Any] {
        let page = try await UpstreamBrowser().request("\(issuer)/token/", method: .POST, form: [
            ("grant_type", "password"), ("username", "alice"), ("password", "alicepw"), ("scope", "openid profile email"),
            ("client_id", "broker-ropc"), ("client_secret", "ropc-secret")])
        return (try? JSONSerialization.jsonObject(with: Data(page.body.utf8))) as? [String: Any] ?? [:]
    }

    /// An ID token the app got through the provider's code flow as `broker` (its `aud`).
    static func providerIDToken() async throws -> String {
        let browser = UpstreamBrowser()
        let start = "\(issuer)/authorize/?" + formEncode([
            ("response_type", "code"), ("client_id", "broker"), ("redirect_uri", OAuthPeerFixture.callbackPrefix), ("state", "app"),
            ("scope", "openid profile email"), ("nonce", "n-1"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")])
        let back = try await browser.signIn(start: start, stopPrefix: OAuthPeerFixture.callbackPrefix, username: "alice", password: "alicepw")
        let code = try #require(queryItems(back)["code"], "no code in \(back)")
        let page = try await browser.request("\(issuer)/token/", method: .POST, form: [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthPeerFixture.callbackPrefix),
            ("client_id", "broker"), ("client_secret", "broker-secret"), ("code_verifier", Flows.verifier)])
        let json = (try? JSONSerialization.jsonObject(with: Data(page.body.utf8))) as? [String: Any] ?? [:]
        return try #require(json["id_token"] as? String, "\(page.body)")
    }

    static func exchange(_ client: any TestClientProtocol, _ token: String, type: String,
                         clientId: String = "\(OAuthPeerFixture.appKey).oidc") async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", grantType), ("client_id", clientId), ("subject_token", token),
                                                   ("subject_token_type", type), ("scope", "openid email")])
    }

    @Test("the provider's access token: broker tokens for alice, the access token kept and forwarded as the upstream token")
    func accessToken() async throws {
        let upstream = try #require(try await Self.providerTokens()["access_token"] as? String)
        try await Self.broker().withClient { client in
            let answer = try await Self.exchange(client, upstream, type: Self.accessType)
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(answer.json["issued_token_type"] as? String == Self.accessType && answer.json["refresh_token"] is String)
            let validated = try await OAuthPeerFixture.validate(client, try #require(answer.json["access_token"] as? String))
            #expect(validated.status == .ok && validated.json["email"] as? String == "alice@example.org")
            #expect(OAuthPeerFixture.upstreamToken(validated.json) == upstream)
            // Not the provider's token: refused, nothing started.
            let forged = try await Self.exchange(client, "not-\(upstream)", type: Self.accessType)
            #expect(forged.status == .badRequest && forged.json["error"] as? String == "invalid_request")
            // An auth service without upstreamTokens takes none.
            let closed = try await Self.exchange(client, upstream, type: Self.accessType, clientId: "\(OAuthPeerFixture.appKey).closed")
            #expect(closed.json["error"] as? String == "unauthorized_client")
        }
    }

    @Test("the provider's ID token: broker tokens for the same user; an audience not allowed or a bad signature is refused")
    func idToken() async throws {
        let idToken = try await Self.providerIDToken()
        try await Self.broker().withClient { client in
            let answer = try await Self.exchange(client, idToken, type: Self.idType)
            #expect(answer.status == .ok, "\(answer.text)")
            let validated = try await OAuthPeerFixture.validate(client, try #require(answer.json["access_token"] as? String))
            #expect(validated.status == .ok && validated.json["client_token"] == nil)
            let narrow = try await Self.exchange(client, idToken, type: Self.idType, clientId: "\(OAuthPeerFixture.appKey).narrow")
            #expect(narrow.status == .badRequest && narrow.json["error"] as? String == "invalid_request")
            var parts = idToken.split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            let tampered = try await Self.exchange(client, parts.joined(separator: "."), type: Self.idType)
            #expect(tampered.status == .badRequest && tampered.json["error"] as? String == "invalid_request")
        }
    }
}
