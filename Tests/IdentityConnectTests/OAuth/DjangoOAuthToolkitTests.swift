import Foundation
import HummingbirdTesting
import Testing

/// The `oauth2` and `openid-connect` connectors against a real provider: django-oauth-toolkit,
/// started by scripts/peers/oidc-op-start.sh (scripts/test.sh exports IDCONNECT_OIDC_ISSUER).
@Suite("oauth2 / openid-connect against django-oauth-toolkit",
       .enabled(if: OAuthPeerFixture.issuer("IDCONNECT_OIDC_ISSUER") != nil,
                "IDCONNECT_OIDC_ISSUER is not set: start scripts/peers/oidc-op-start.sh (scripts/test.sh does)"))
struct DjangoOAuthToolkitTests {
    static var issuer: String { OAuthPeerFixture.issuer("IDCONNECT_OIDC_ISSUER") ?? "" }
    /// The provider's access-token lifetime (scripts/test.sh starts it with 120 s).
    static var upstreamTTL: TimeInterval {
        TimeInterval(ProcessInfo.processInfo.environment["IDCONNECT_OIDC_ACCESS_TTL"] ?? "") ?? 3600
    }

    /// `clockSkew: 600` on the code-flow service: the tests move the broker's clock ahead of the
    /// provider's by several token lifetimes, and refreshed id_tokens must still pass.
    static var files: [String: String] {
        let issuer = Self.issuer
        return OAuthPeerFixture.files([
            OAuthPeerFixture.service("oidc", type: "openid-connect", options: """
                issuerId: "\(issuer)", clientId: broker, clientSecret: broker-secret, scope: "openid profile email groups",
                clockSkew: 600
                """),
            OAuthPeerFixture.service("plain", type: "oauth2", remoteService: "\(issuer)/token/", options: """
                grantEndpoint: "\(issuer)/authorize/", clientId: broker, clientSecret: broker-secret, scope: "openid profile email",
                userIdEndpoint: "\(issuer)/userinfo/", userIdAttribute: preferred_username,
                includeClientIdInTokenRequest: true, includeClientSecretInTokenRequest: true
                """),
            OAuthPeerFixture.service("ropc", type: "openid-connect", options: """
                issuerId: "\(issuer)", clientId: broker-ropc, clientSecret: ropc-secret, grantType: password,
                scope: "openid profile email groups", userIdAttribute: preferred_username
                """),
            OAuthPeerFixture.service("ropc2", type: "oauth2", remoteService: "\(issuer)/token/", options: """
                clientId: broker-ropc, clientSecret: ropc-secret, grantType: password, scope: "openid profile",
                userIdEndpoint: "\(issuer)/userinfo/", userIdAttribute: preferred_username
                """),
        ].joined(separator: "\n"))
    }

    static func broker() async throws -> TestBroker {
        try await TestBroker.make(files: files, registry: OAuthPeerFixture.registry)
    }

    @Test("openid-connect: the login form, a verified id_token, userinfo merged, the upstream token forwarded")
    func openIDConnectSignIn() async throws {
        try await Self.broker().withClient { client in
            let tokens = try await OAuthPeerFixture.signIn(client, authService: "oidc", username: "alice", password: "alicepw")
            #expect(tokens["id_token"] is String)
            let access = try #require(tokens["access_token"] as? String)
            let validated = try await OAuthPeerFixture.validate(client, access)
            #expect(validated.status == .ok)
            #expect(validated.json["email"] as? String == "alice@example.org")
            #expect(validated.json["groups"] as? [String] == ["admins", "developers"])
            let upstream = try #require(OAuthPeerFixture.upstreamToken(validated.json))
            let info = try await OAuthPeerFixture.userInfo("\(Self.issuer)/userinfo/", accessToken: upstream)
            #expect(info.status == 200)
            #expect(info.json["preferred_username"] as? String == "alice")
            // The user id is the provider's subject.
            #expect(validated.json["id"] as? String == info.json["sub"] as? String)
        }
    }

    @Test("oauth2: code + PKCE with the secret in the body; user id from userIdEndpoint")
    func oauth2SignIn() async throws {
        try await Self.broker().withClient { client in
            let tokens = try await OAuthPeerFixture.signIn(client, authService: "plain", username: "alice", password: "alicepw")
            let validated = try await OAuthPeerFixture.validate(client, try #require(tokens["access_token"] as? String))
            #expect(validated.status == .ok)
            #expect(validated.json["id"] as? String == "alice")
            let upstream = try #require(OAuthPeerFixture.upstreamToken(validated.json))
            #expect(try await OAuthPeerFixture.userInfo("\(Self.issuer)/userinfo/", accessToken: upstream).status == 200)
        }
    }

    @Test("grantType password: token endpoint and automated grant sign in; a wrong password is access_denied")
    func passwordGrant() async throws {
        try await Self.broker().withClient { client in
            for service in ["ropc", "ropc2"] {
                let answer = try await OAuthPeerFixture.passwordGrant(client, authService: service, username: "alice", password: "alicepw")
                #expect(answer.status == .ok, "\(service): \(answer.text)")
                let validated = try await OAuthPeerFixture.validate(client, try #require(answer.json["access_token"] as? String))
                #expect(validated.json["id"] as? String == "alice", "\(service)")
                let wrong = try await OAuthPeerFixture.passwordGrant(client, authService: service, username: "alice", password: "nope")
                #expect(wrong.status == .badRequest)
                #expect(wrong.json["error"] as? String == "access_denied")
            }
            let location = try await Flows.automatedLogin(client, clientId: "\(OAuthPeerFixture.appKey).ropc", username: "bob", password: "bobpw")
            #expect(queryItems(location)["code"] != nil)
        }
    }

    @Test("when the upstream access token expires the broker refreshes it, and uses the rotated refresh token next time")
    func upstreamRefresh() async throws {
        let broker = try await Self.broker()
        try await broker.withClient { client in
            let tokens = try await OAuthPeerFixture.signIn(client, authService: "oidc", username: "alice", password: "alicepw")
            let access = try #require(tokens["access_token"] as? String)
            let first = try #require(OAuthPeerFixture.upstreamToken(try await OAuthPeerFixture.validate(client, access).json))
            // Not expired yet: the same upstream token.
            #expect(OAuthPeerFixture.upstreamToken(try await OAuthPeerFixture.validate(client, access).json) == first)

            broker.clock.advance(Self.upstreamTTL + 10)
            let second = try await OAuthPeerFixture.validate(client, access)
            #expect(second.status == .ok)
            let renewed = try #require(OAuthPeerFixture.upstreamToken(second.json))
            #expect(renewed != first)
            #expect(try await OAuthPeerFixture.userInfo("\(Self.issuer)/userinfo/", accessToken: renewed).status == 200)

            // django-oauth-toolkit rotates refresh tokens and refuses a used one: a second refresh
            // succeeds only with the rotated token.
            broker.clock.advance(Self.upstreamTTL + 10)
            let refreshed = try await OAuthPeerFixture.refresh(client, try #require(tokens["refresh_token"] as? String), authService: "oidc")
            #expect(refreshed.status == .ok, "\(refreshed.text)")
            let third = try await OAuthPeerFixture.validate(client, try #require(refreshed.json["access_token"] as? String))
            let latest = try #require(OAuthPeerFixture.upstreamToken(third.json))
            #expect(latest != renewed)
            #expect(try await OAuthPeerFixture.userInfo("\(Self.issuer)/userinfo/", accessToken: latest).status == 200)
        }
    }

    @Test("grants revoked at the provider: the next upstream refresh is refused and the session ends")
    func refusedRefreshEndsSession() async throws {
        let broker = try await Self.broker()
        try await broker.withClient { client in
            let signIn = try await OAuthPeerFixture.passwordGrant(client, authService: "ropc", username: "bob", password: "bobpw")
            #expect(signIn.status == .ok)
            let access = try #require(signIn.json["access_token"] as? String)
            let refresh = try #require(signIn.json["refresh_token"] as? String)
            let control = Self.issuer.replacingOccurrences(of: "/o", with: "") + "/test-control/revoke/bob"
            let revoked = try await UpstreamBrowser().request(control, method: .POST, form: [])
            #expect(revoked.status == 200)

            broker.clock.advance(Self.upstreamTTL + 10)
            #expect(try await OAuthPeerFixture.validate(client, access).status == .unauthorized)
            let again = try await OAuthPeerFixture.refresh(client, refresh, authService: "ropc")
            #expect(again.json["error"] as? String == "invalid_grant")
        }
    }
}
