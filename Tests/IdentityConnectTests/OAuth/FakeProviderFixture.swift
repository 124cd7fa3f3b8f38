import Foundation
import HummingbirdTesting
import Testing

/// A broker whose auth services point at a ``FakeOpenIDProvider`` at `base`.
enum FakeProviderFixture {
    static func files(base: String, oidcExtra: String = "", oauth2Extra: String = "") -> [String: String] {
        OAuthPeerFixture.files([
            OAuthPeerFixture.service("fake", type: "openid-connect", options: """
                issuerId: "\(base)", clientId: broker, clientSecret: s3cret, timeout: 2\(oidcExtra)
                """),
            OAuthPeerFixture.service("plain", type: "oauth2", remoteService: "\(base)/token", options: """
                grantEndpoint: "\(base)/authorize?tenant=t1", clientId: "broker app", clientSecret: "s3cret:x", userIdAttribute: user.id,
                scope: [ read, write ], timeout: 2\(oauth2Extra)
                """),
        ].joined(separator: "\n"))
    }

    /// Starts a sign-in; returns the upstream authorization URL's parameters and the CSRF cookie.
    static func start(_ client: any TestClientProtocol, authService: String = "fake") async throws -> (query: [String: String], url: String, cookie: String) {
        let (url, cookie) = try await OAuthPeerFixture.start(client, authService: authService)
        return (queryItems(url), url, cookie)
    }

    /// One sign-in where the provider hands out `idToken(nonce)`; returns the broker's redirect to the app.
    static func signIn(_ client: any TestClientProtocol, provider: FakeOpenIDProvider, authService: String = "fake",
                       idToken: (_ nonce: String) -> String?) async throws -> String {
        let (query, _, cookie) = try await start(client, authService: authService)
        let nonce = query["nonce"] ?? ""
        let token = idToken(nonce)
        provider.update { $0.idToken = token }
        let answer = try await client.get("/oauth/callback?" + formEncode([("code", "c-1"), ("state", query["state"] ?? "")]),
                                          headers: [.cookie: "idc_csrf=\(cookie)"])
        return try #require(answer.location, "no redirect: \(answer.status) \(answer.text.prefix(300))")
    }
}
