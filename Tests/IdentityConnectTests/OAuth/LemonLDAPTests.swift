import Foundation
import HummingbirdTesting
import Testing

/// The `openid-connect` connector against a second real provider: LemonLDAP::NG, started by
/// scripts/peers/llng-start.sh (scripts/test.sh exports IDCONNECT_LLNG_ISSUER).
@Suite("openid-connect against LemonLDAP::NG",
       .enabled(if: OAuthPeerFixture.issuer("IDCONNECT_LLNG_ISSUER") != nil,
                "IDCONNECT_LLNG_ISSUER is not set: start scripts/peers/llng-start.sh (scripts/test.sh does)"))
struct LemonLDAPTests {
    static var issuer: String { OAuthPeerFixture.issuer("IDCONNECT_LLNG_ISSUER") ?? "" }
    static var upstreamTTL: TimeInterval {
        TimeInterval(ProcessInfo.processInfo.environment["IDCONNECT_LLNG_ACCESS_TTL"] ?? "") ?? 3600
    }

    static var files: [String: String] {
        OAuthPeerFixture.files([
            OAuthPeerFixture.service("llng", type: "openid-connect", options: """
                issuerId: "\(issuer)", clientId: broker, clientSecret: broker-secret, scope: "openid profile email", clockSkew: 600
                """),
            OAuthPeerFixture.service("llng-password", type: "openid-connect", options: """
                issuerId: "\(issuer)", clientId: broker, clientSecret: broker-secret, scope: "openid profile email",
                grantType: password, includeClientSecretInTokenRequest: true
                """),
        ].joined(separator: "\n"))
    }

    @Test("sign in through LemonLDAP::NG's login form; id_token verified; upstream refresh when its token expires")
    func signInAndRefresh() async throws {
        let broker = try await TestBroker.make(files: Self.files, registry: OAuthPeerFixture.registry)
        try await broker.withClient { client in
            let tokens = try await OAuthPeerFixture.signIn(client, authService: "llng", username: "dwho", password: "dwho")
            let access = try #require(tokens["access_token"] as? String)
            let validated = try await OAuthPeerFixture.validate(client, access)
            #expect(validated.status == .ok)
            #expect(validated.json["id"] as? String == "dwho")
            #expect(validated.json["email"] as? String == "dwho@badwolf.org")
            let first = try #require(OAuthPeerFixture.upstreamToken(validated.json))
            #expect(try await OAuthPeerFixture.userInfo("\(Self.issuer)/oauth2/userinfo", accessToken: first).status == 200)

            broker.clock.advance(Self.upstreamTTL + 10)
            let again = try await OAuthPeerFixture.validate(client, access)
            #expect(again.status == .ok)
            let renewed = try #require(OAuthPeerFixture.upstreamToken(again.json))
            #expect(renewed != first)
            #expect(try await OAuthPeerFixture.userInfo("\(Self.issuer)/oauth2/userinfo", accessToken: renewed).status == 200)
        }
    }

    @Test("signing out at LemonLDAP::NG ends its session: the next upstream refresh is refused and the broker session ends")
    func signOutUpstreamEndsSession() async throws {
        let broker = try await TestBroker.make(files: Self.files, registry: OAuthPeerFixture.registry)
        try await broker.withClient { client in
            let browser = UpstreamBrowser()
            let tokens = try await OAuthPeerFixture.signIn(client, authService: "llng", username: "rtyler", password: "rtyler", browser: browser)
            let access = try #require(tokens["access_token"] as? String)
            #expect(try await OAuthPeerFixture.validate(client, access).status == .ok)
            let logout = try await browser.request("\(Self.issuer)/?logout=1")
            #expect(logout.status < 500)

            broker.clock.advance(Self.upstreamTTL + 10)
            #expect(try await OAuthPeerFixture.validate(client, access).status == .unauthorized)
            let refreshed = try await OAuthPeerFixture.refresh(client, try #require(tokens["refresh_token"] as? String), authService: "llng")
            #expect(refreshed.json["error"] as? String == "invalid_grant")
        }
    }

    @Test("grantType password with the client secret in the body; a wrong password is access_denied")
    func passwordGrant() async throws {
        let broker = try await TestBroker.make(files: Self.files, registry: OAuthPeerFixture.registry)
        try await broker.withClient { client in
            let answer = try await OAuthPeerFixture.passwordGrant(client, authService: "llng-password", username: "rtyler", password: "rtyler")
            #expect(answer.status == .ok, "\(answer.text)")
            let validated = try await OAuthPeerFixture.validate(client, try #require(answer.json["access_token"] as? String))
            #expect(validated.json["id"] as? String == "rtyler")
            let wrong = try await OAuthPeerFixture.passwordGrant(client, authService: "llng-password", username: "rtyler", password: "x")
            #expect(wrong.json["error"] as? String == "access_denied")
        }
    }
}
