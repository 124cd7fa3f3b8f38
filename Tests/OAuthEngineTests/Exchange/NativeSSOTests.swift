import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import OAuthEngine
import OneTimePassword
import Testing

/// Native SSO for mobile apps (docs/native-sso.md): the first app's `device_sso` sign-in brings a
/// device secret; a second app of the environment exchanges the ID token and the secret for its
/// own tokens in the same session, while that session lives.
@Suite("Native SSO")
struct NativeSSOTests {
    static let deviceSecretType = "urn:x-oath:params:oauth:token-type:device-secret"
    static let idType = "urn:ietf:params:oauth:token-type:id_token"
    static let first = "\(EngineFixture.appKey).mail", second = "\(EngineFixture.appKey).calendar"

    static func fixture() async throws -> EngineFixture {
        try await EngineFixture(environments: [
            EngineFixture.environment(services: [
                EngineFixture.service("mail") { $0.nativeSSO = true },
                EngineFixture.service("calendar") { $0.nativeSSO = true },
                EngineFixture.service("plain"),
                EngineFixture.service("strict") {
                    $0.nativeSSO = true
                    $0.mfa = MFASettings(mode: .required, methods: [.totp])
                },
            ]),
            EngineFixture.environment(appKey: "kid_vendor2", services: [EngineFixture.service("mail") { $0.nativeSSO = true }]),
        ])
    }

    static func share(_ fixture: EngineFixture, idToken: String?, secret: String?, clientId: String = second,
                      basic: BasicCredentials? = EngineFixture.appCredentials) async throws -> TokenResponse {
        try await fixture.token([("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", clientId),
                                 ("subject_token", idToken ?? ""), ("subject_token_type", idType), ("actor_token", secret ?? ""),
                                 ("actor_token_type", deviceSecretType), ("scope", "openid device_sso email")], basic: basic)
    }

    @Test("the first app's device secret and ds_hash; the second app gets its own tokens and secret in the same session, no browser")
    func shared() async throws {
        let fixture = try await Self.fixture()
        let mail = try await fixture.passwordGrant(clientId: Self.first, scope: "openid device_sso")
        let secret = try #require(mail.device_secret)
        let mailClaims = EngineFixture.claims(mail.id_token)
        #expect(mailClaims["ds_hash"] == .string(AccessTokenHash.compute(secret)))
        let calendar = try await Self.share(fixture, idToken: mail.id_token, secret: secret)
        let claims = EngineFixture.claims(calendar.id_token)
        #expect(claims["sub"] == mailClaims["sub"] && claims["sid"] == mailClaims["sid"] && claims["aud"] == .string(Self.second))
        #expect(calendar.refresh_token != nil && calendar.device_secret != nil && calendar.device_secret != secret)
        #expect(calendar.issued_token_type == "urn:ietf:params:oauth:token-type:access_token")
        // Later, with the first ID token expired: still shared while the session lives.
        fixture.clock.advance(7200)
        let later = try await Self.share(fixture, idToken: mail.id_token, secret: secret)
        #expect(EngineFixture.claims(later.access_token)["sid"] == mailClaims["sid"])
    }

    @Test("discovery: device_sso and the token-exchange grant where an auth service has nativeSSO")
    func discovery() async throws {
        let document = try await Self.fixture().engine.discovery.document()
        guard case .array(let scopes)? = document["scopes_supported"], case .array(let grants)? = document["grant_types_supported"] else {
            throw UnexpectedOutcome("no lists")
        }
        #expect(scopes.contains(.string("device_sso")) && grants.contains(.string("urn:ietf:params:oauth:grant-type:token-exchange")))
        let plain = try await EngineFixture().engine.discovery.document()
        guard case .array(let plainGrants)? = plain["grant_types_supported"] else { throw UnexpectedOutcome("no grants") }
        #expect(!plainGrants.contains(.string("urn:ietf:params:oauth:grant-type:token-exchange")))
    }

    @Test("without device_sso, or without nativeSSO, no device secret; the scope is not granted")
    func onlyWhenAsked() async throws {
        let fixture = try await Self.fixture()
        #expect(try await fixture.passwordGrant(clientId: Self.first, scope: "openid").device_secret == nil)
        let plain = try await fixture.passwordGrant(clientId: "\(EngineFixture.appKey).plain", scope: "openid device_sso")
        #expect(plain.device_secret == nil && !Scopes.contains(plain.scope, "device_sso"))
    }

    @Test("refused: another session's secret, a forged ID token, another environment, no nativeSSO, a signed-out session")
    func refusals() async throws {
        let fixture = try await Self.fixture()
        let mail = try await fixture.passwordGrant(clientId: Self.first, scope: "openid device_sso")
        let other = try await fixture.passwordGrant(clientId: Self.first, username: "bob", password: "bobpw", scope: "openid device_sso")
        #expect(await EngineFixture.errorCode { try await Self.share(fixture, idToken: mail.id_token, secret: other.device_secret) }
            == "invalid_grant")
        var parts = (mail.id_token ?? "").split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        #expect(await EngineFixture.errorCode { try await Self.share(fixture, idToken: parts.joined(separator: "."), secret: mail.device_secret) }
            == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await Self.share(fixture, idToken: mail.id_token, secret: "forged") } == "invalid_grant")
        let vendor2 = BasicCredentials(user: "kid_vendor2", password: EngineFixture.appSecret)
        #expect(await EngineFixture.errorCode {
            try await Self.share(fixture, idToken: mail.id_token, secret: mail.device_secret, clientId: "kid_vendor2", basic: vendor2)
        } == "invalid_grant")
        #expect(await EngineFixture.errorCode {
            try await Self.share(fixture, idToken: mail.id_token, secret: mail.device_secret, clientId: "\(EngineFixture.appKey).plain")
        } == "unauthorized_client")
        #expect(await EngineFixture.errorCode {
            try await fixture.token([("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", Self.second),
                                     ("subject_token", mail.access_token), ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"),
                                     ("actor_token", mail.device_secret ?? ""), ("actor_token_type", Self.deviceSecretType)])
        } == "invalid_request")
        let sid = try #require(EngineFixture.claims(mail.id_token)["sid"]?.stringValue)
        try await fixture.storage.sessions.revokeSession(id: sid, at: fixture.clock.now())
        #expect(await EngineFixture.errorCode { try await Self.share(fixture, idToken: mail.id_token, secret: mail.device_secret) }
            == "invalid_grant")
    }

    @Test("an app whose auth service needs a second factor does not share a sign-in that proved none")
    func secondFactor() async throws {
        let fixture = try await Self.fixture()
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: "\(EngineFixture.appKey).strict")
        let mail = try await fixture.passwordGrant(clientId: Self.first, scope: "openid device_sso")
        #expect(await EngineFixture.errorCode {
            try await Self.share(fixture, idToken: mail.id_token, secret: mail.device_secret, clientId: "\(EngineFixture.appKey).strict")
        } == "login_required")
    }
}
