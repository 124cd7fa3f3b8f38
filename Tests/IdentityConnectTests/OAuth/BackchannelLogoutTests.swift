import Crypto
import CryptoExtras
import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// OpenID Connect Back-Channel Logout from the provider (docs/connectors/oauth2-oidc.md,
/// "Back-channel logout from the provider"): a fake provider's logout tokens end the sign-ins they
/// name at once; every refused token ends nothing and is a 400 with the reason.
@Suite("openid-connect: back-channel logout from a fake provider")
struct BackchannelLogoutTests {
    static let event = ["http://schemas.openid.net/event/backchannel-logout": [String: String]()]
    static let endpoint = "/oauth/backchannel-logout/\(OAuthPeerFixture.appKey).fake"

    /// A logout token signed with the provider's key `k1` (RS256, `typ` logout+jwt unless told).
    static func logoutToken(_ claims: [String: Any], typ: String? = "logout+jwt",
                            key: _RSA.Signing.PrivateKey = UpstreamTestKeys.rsa) -> String {
        var header: [String: Any] = ["alg": "RS256", "kid": "k1"]
        if let typ { header["typ"] = typ }
        return Mint.token(header: header, claims: claims) {
            try! key.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation
        }
    }

    static func claims(issuer: String, now: Date, _ overrides: [String: Any?]) -> [String: Any] {
        var claims: [String: Any] = ["iss": issuer, "aud": "broker", "iat": Int(now.timeIntervalSince1970),
                                     "jti": UUID().uuidString, "events": event, "sub": "fake-user"]
        for (name, value) in overrides { claims[name] = value }
        return claims
    }

    /// Signs in through the fake provider with an ID token carrying `sid`; returns the broker's tokens.
    static func signIn(_ client: any TestClientProtocol, _ provider: FakeOpenIDProvider, base: String, now: Date,
                       sid: String?) async throws -> (access: String, refresh: String) {
        let location = try await FakeProviderFixture.signIn(client, provider: provider) { nonce in
            Mint.rs256(Mint.claims(issuer: base, nonce: nonce, now: now, sid.map { ["sid": $0] } ?? [:]))
        }
        let code = try #require(queryItems(location)["code"], "\(location)")
        let tokens = try await OAuthPeerFixture.exchange(client, code: code, authService: "fake")
        return (try #require(tokens.json["access_token"] as? String), try #require(tokens.json["refresh_token"] as? String))
    }

    static func post(_ client: any TestClientProtocol, _ token: String, to path: String = endpoint) async throws -> TestResponse {
        try await client.postForm(path, [("logout_token", token)])
    }

    @Test("a token naming the sign-in's sid ends that one at once (validate, refresh); the user's other sign-in stays; a copy is a replay")
    func bySessionId() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let now = broker.clock.now()
                let first = try await Self.signIn(client, provider, base: base, now: now, sid: "op-session-1")
                let second = try await Self.signIn(client, provider, base: base, now: now, sid: "op-session-2")
                let token = Self.logoutToken(Self.claims(issuer: base, now: now, ["sid": "op-session-1"]))
                let answer = try await Self.post(client, token)
                #expect(answer.status == .ok, "\(answer.text)")
                #expect(answer.headers[.cacheControl] == "no-store")
                #expect(try await OAuthPeerFixture.validate(client, first.access).status == .unauthorized)
                let refreshed = try await OAuthPeerFixture.refresh(client, first.refresh, authService: "fake")
                #expect(refreshed.json["error"] as? String == "invalid_grant")
                #expect(try await OAuthPeerFixture.validate(client, second.access).status == .ok)
                let again = try await Self.post(client, token)
                #expect(again.status == .badRequest)
                #expect((again.json["error_description"] as? String)?.contains("already used") == true)
            }
        }
    }

    @Test("sub alone ends every sign-in of the user; a user id that is not sub needs sid")
    func bySubject() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let now = broker.clock.now()
                let first = try await Self.signIn(client, provider, base: base, now: now, sid: "op-session-3")
                let second = try await Self.signIn(client, provider, base: base, now: now, sid: nil)
                #expect(try await Self.post(client, Self.logoutToken(Self.claims(issuer: base, now: now, [:]))).status == .ok)
                #expect(try await OAuthPeerFixture.validate(client, first.access).status == .unauthorized)
                #expect(try await OAuthPeerFixture.validate(client, second.access).status == .unauthorized)
            }
        }
        let byMail = FakeOpenIDProvider()
        try await TestHTTPServer.with(byMail.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base, oidcExtra: ", userIdAttribute: email"),
                                                   registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let now = broker.clock.now()
                let signedIn = try await Self.signIn(client, byMail, base: base, now: now, sid: "op-session-4")
                let subOnly = try await Self.post(client, Self.logoutToken(Self.claims(issuer: base, now: now, [:])))
                #expect(subOnly.status == .badRequest)
                #expect((subOnly.json["error_description"] as? String)?.contains("userIdAttribute") == true)
                #expect(try await OAuthPeerFixture.validate(client, signedIn.access).status == .ok)
                let sidOnly = Self.logoutToken(Self.claims(issuer: base, now: now, ["sub": nil, "sid": "op-session-4"]))
                #expect(try await Self.post(client, sidOnly).status == .ok)
                #expect(try await OAuthPeerFixture.validate(client, signedIn.access).status == .unauthorized)
            }
        }
    }

    @Test("refused: no token, another auth service or none, alg none, another key, iss, aud, no or another event, a nonce, neither sub nor sid, old, expired, no jti, an ID token, typ at+jwt")
    func refused() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let now = broker.clock.now()
                let signedIn = try await Self.signIn(client, provider, base: base, now: now, sid: "op-session-5")
                func claims(_ overrides: [String: Any?]) -> [String: Any] {
                    Self.claims(issuer: base, now: now, (["sid": "op-session-5"] as [String: Any?]).merging(overrides) { $1 })
                }
                let none = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "."
                    + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims([:]))) + "."
                let hostile: [(String, String)] = [
                    ("alg none", none),
                    ("another key, same kid", Self.logoutToken(claims([:]), key: UpstreamTestKeys.rotated)),
                    ("another issuer", Self.logoutToken(claims(["iss": "https://evil.example.com"]))),
                    ("another audience", Self.logoutToken(claims(["aud": "someone-else"]))),
                    ("no events", Self.logoutToken(claims(["events": nil]))),
                    ("another event", Self.logoutToken(claims(["events": ["http://schemas.openid.net/event/other": [String: String]()]]))),
                    ("a nonce", Self.logoutToken(claims(["nonce": "n-1"]))),
                    ("neither sub nor sid", Self.logoutToken(claims(["sub": nil, "sid": nil]))),
                    ("twenty minutes old", Self.logoutToken(claims(["iat": Int(now.timeIntervalSince1970) - 1200]))),
                    ("expired", Self.logoutToken(claims(["exp": Int(now.timeIntervalSince1970) - 300]))),
                    ("no jti", Self.logoutToken(claims(["jti": nil]))),
                    ("an ID token", Mint.rs256(Mint.claims(issuer: base, nonce: "n-2", now: now, ["sid": "op-session-5"]))),
                    ("typ at+jwt", Self.logoutToken(claims([:]), typ: "at+jwt")),
                    ("not a JWT", "not-a-jwt"),
                ]
                for (name, token) in hostile {
                    let answer = try await Self.post(client, token)
                    #expect(answer.status == .badRequest, "\(name): \(answer.status) \(answer.text.prefix(200))")
                    #expect(answer.json["error"] as? String == "invalid_request", "\(name)")
                }
                let honest = Self.logoutToken(claims([:]))
                let elsewhere: [(String, TestResponse)] = [
                    ("no logout_token", try await client.postForm(Self.endpoint, [])),
                    ("an oauth2 auth service", try await Self.post(client, honest, to: "/oauth/backchannel-logout/\(OAuthPeerFixture.appKey).plain")),
                    ("an unknown auth service", try await Self.post(client, honest, to: "/oauth/backchannel-logout/kid_nobody.fake")),
                ]
                for (name, answer) in elsewhere {
                    #expect(answer.status == .badRequest, "\(name): \(answer.status) \(answer.text.prefix(200))")
                }
                #expect(try await client.get(Self.endpoint).status == .methodNotAllowed)
                #expect(try await OAuthPeerFixture.validate(client, signedIn.access).status == .ok, "nothing refused ended the sign-in")
                #expect(try await Self.post(client, honest).status == .ok)
                #expect(try await OAuthPeerFixture.validate(client, signedIn.access).status == .unauthorized)
            }
        }
    }
}
