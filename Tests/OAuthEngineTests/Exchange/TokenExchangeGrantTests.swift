import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import OAuthEngine
import Testing

/// Token exchange between the broker's own tokens (RFC 8693, docs/token-exchange.md): another
/// API, never more scope, `act` for an allowed actor; refused without `tokenExchange`, without
/// the secret, across environments, and for anything but a live access token.
@Suite("TokenExchangeGrant")
struct TokenExchangeGrantTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessType = "urn:ietf:params:oauth:token-type:access_token"
    static let apiA = "https://a.example.com", apiB = "https://b.example.com"
    static let resourceServer = "\(EngineFixture.appKey).rs"

    static func fixture() async throws -> EngineFixture {
        try await EngineFixture(environments: [
            EngineFixture.environment(services: [
                EngineFixture.service("users"),
                EngineFixture.service("rs") {
                    $0.tokenExchange = TokenExchangeSettings(audiences: [apiB], actors: ["\(EngineFixture.appKey).agent"])
                },
                EngineFixture.service("agent"),
                EngineFixture.service("narrow") {
                    $0.allowedScopes = ["api:b"]
                    $0.tokenExchange = TokenExchangeSettings(actors: ["\(EngineFixture.appKey).agent"])
                },
            ]) { $0.apiResources = [APIResource(scope: "api:a", audience: apiA), APIResource(scope: "api:b", audience: apiB)] },
            EngineFixture.environment(appKey: "kid_other"),
        ])
    }

    static func exchange(_ fixture: EngineFixture, subject: String, clientId: String = resourceServer,
                         extra: [(String, String)] = [], basic: BasicCredentials? = EngineFixture.appCredentials) async throws -> TokenResponse {
        try await fixture.token([("grant_type", grantType), ("client_id", clientId), ("subject_token", subject),
                                 ("subject_token_type", accessType)] + extra, basic: basic)
    }

    @Test("a token for API A and B comes back for B alone, with less scope, for the resource server, in the same session")
    func anotherAPI() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.passwordGrant(scope: "openid api:a api:b")
        let exchanged = try await Self.exchange(fixture, subject: user.access_token, extra: [("resource", Self.apiB), ("scope", "api:b")])
        #expect(exchanged.issued_token_type == Self.accessType && exchanged.token_type == "Bearer")
        #expect(exchanged.refresh_token == nil && exchanged.id_token == nil && exchanged.scope == "api:b")
        let claims = EngineFixture.claims(exchanged.access_token)
        #expect(claims["aud"] == .string(Self.apiB) && claims["client_id"] == .string(Self.resourceServer))
        #expect(claims["sub"] == EngineFixture.claims(user.access_token)["sub"] && claims["act"] == nil)
        #expect(claims["sid"] == EngineFixture.claims(user.access_token)["sid"])
        // It validates, and ends with the user's session.
        _ = try await fixture.engine.validation.validate(accessToken: exchanged.access_token, basic: nil)
        try await fixture.storage.sessions.revokeSession(id: claims["sid"]?.stringValue ?? "", at: fixture.clock.now())
        #expect(await EngineFixture.errorCode { try await fixture.engine.validation.validate(accessToken: exchanged.access_token, basic: nil) }
            == "invalid_token")
    }

    @Test("never more scope, never an API outside tokenExchange.audiences")
    func limits() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.passwordGrant(scope: "openid api:a")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, extra: [("scope", "api:a api:b")]) }
            == "invalid_scope")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, extra: [("resource", Self.apiA)]) }
            == "invalid_target")
        // B is allowed, but the token brought no api:b scope: nothing to aim at B.
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, extra: [("audience", Self.apiB)]) }
            == "invalid_target")
        // Plain down-scoping needs no audience.
        let narrowed = try await Self.exchange(fixture, subject: user.access_token, extra: [("scope", "openid")])
        #expect(narrowed.scope == "openid")
    }

    @Test("an allowed actor's token puts act {sub, client_id} in the new token; another client's is refused")
    func actor() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.passwordGrant(scope: "openid api:b")
        let agent = try await fixture.passwordGrant(clientId: "\(EngineFixture.appKey).agent", username: "bob", password: "bobpw")
        let acting = try await Self.exchange(fixture, subject: user.access_token, extra: [
            ("audience", Self.apiB), ("actor_token", agent.access_token), ("actor_token_type", Self.accessType)])
        guard case .object(let act)? = EngineFixture.claims(acting.access_token)["act"] else { throw UnexpectedOutcome("no act") }
        #expect(act["sub"] == EngineFixture.claims(agent.access_token)["sub"] && act["client_id"] == .string("\(EngineFixture.appKey).agent"))
        let stranger = try await fixture.passwordGrant(username: "bob", password: "bobpw")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, extra: [
            ("actor_token", stranger.access_token), ("actor_token_type", Self.accessType)]) } == "invalid_request")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, extra: [
            ("actor_token", agent.access_token)]) } == "invalid_request")
        // Introspection shows who acts.
        let introspected = try await fixture.engine.introspection.introspect(
            try EngineFixture.parameters([("token", acting.access_token), ("client_id", EngineFixture.appKey)]),
            basic: EngineFixture.appCredentials)
        #expect(introspected["act"] != nil)
    }

    @Test("the chain of actors: a second exchange nests the first act; without an actor the subject's act stays")
    func actorChain() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.passwordGrant(scope: "openid api:b")
        let agent = try await fixture.passwordGrant(clientId: "\(EngineFixture.appKey).agent", username: "bob", password: "bobpw")
        let actorPairs = [("actor_token", agent.access_token), ("actor_token_type", Self.accessType)]
        let once = try await Self.exchange(fixture, subject: user.access_token, extra: actorPairs)
        let twice = try await Self.exchange(fixture, subject: once.access_token, clientId: "\(EngineFixture.appKey).narrow", extra: actorPairs)
        guard case .object(let outer)? = EngineFixture.claims(twice.access_token)["act"],
              case .object(let inner)? = outer["act"] else { throw UnexpectedOutcome("no nested act") }
        #expect(outer["client_id"] == .string("\(EngineFixture.appKey).agent") && inner["client_id"] == .string("\(EngineFixture.appKey).agent"))
        let kept = try await Self.exchange(fixture, subject: once.access_token, clientId: "\(EngineFixture.appKey).narrow")
        #expect(EngineFixture.claims(kept.access_token)["act"] == EngineFixture.claims(once.access_token)["act"])
    }

    @Test("the exchanging client's allowedScopes hold, and the new token lives no longer than the one brought")
    func allowedScopesAndLifetime() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.passwordGrant(scope: "openid api:a api:b")
        let narrow = "\(EngineFixture.appKey).narrow"
        let implicit = try await Self.exchange(fixture, subject: user.access_token, clientId: narrow)
        #expect(implicit.scope == "openid api:b")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, clientId: narrow,
                                                                       extra: [("scope", "api:a")]) } == "invalid_scope")
        fixture.clock.advance(3000)
        let late = try await Self.exchange(fixture, subject: user.access_token, extra: [("scope", "openid")])
        #expect(late.expires_in <= 600)
        let exp = EngineFixture.claims(late.access_token)["exp"], subjectExp = EngineFixture.claims(user.access_token)["exp"]
        #expect(exp == subjectExp)
    }

    @Test("refused: without tokenExchange, without the secret, another environment's token, a refresh token, garbage, other types")
    func refusals() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.passwordGrant(scope: "openid api:a")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, clientId: EngineFixture.appKey) }
            == "unauthorized_client")
        #expect(await EngineFixture.errorCode {
            try await Self.exchange(fixture, subject: user.access_token, basic: BasicCredentials(user: EngineFixture.appKey, password: "wrong"))
        } == "invalid_client")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, basic: nil) } == "invalid_client")
        let other = try await fixture.passwordGrant(clientId: "kid_other", basic: BasicCredentials(user: "kid_other", password: EngineFixture.appSecret))
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: other.access_token) } == "invalid_request")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: try #require(user.refresh_token)) } == "invalid_request")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: "not.a.token") } == "invalid_request")
        #expect(await EngineFixture.errorCode {
            try await fixture.token([("grant_type", Self.grantType), ("client_id", Self.resourceServer), ("subject_token", user.access_token),
                                     ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token")])
        } == "invalid_request")
        #expect(await EngineFixture.errorCode { try await Self.exchange(fixture, subject: user.access_token, extra: [
            ("requested_token_type", "urn:ietf:params:oauth:token-type:refresh_token")]) } == "invalid_request")
        #expect(await EngineFixture.errorCode {
            try await fixture.token([("grant_type", Self.grantType), ("client_id", Self.resourceServer)])
        } == "invalid_request")
    }
}
