import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
@testable import OAuthEngine
import Testing

/// `grant_type=refresh_token` (docs/protocol.md, "POST /oauth/token"; docs/security.md, rule 2):
/// rotation on every use, 10 s of grace for a retried token, reuse revoking the family, the
/// client authentication it was issued under, and resources that narrow but never widen.
@Suite("RefreshTokenGrant")
struct RefreshTokenGrantTests {
    @Test("every use rotates; the old token within 10 s returns the same pair; after that its reuse revokes the family")
    func rotationGraceAndReuse() async throws {
        let fixture = try await EngineFixture()
        let refresh = try await fixture.passwordGrant().refresh_token
        let rotated = try await fixture.refresh(refresh)
        #expect(rotated.refresh_token != nil && rotated.refresh_token != refresh)
        fixture.clock.advance(10)
        #expect(try await fixture.refresh(refresh) == rotated)
        fixture.clock.advance(1)
        #expect(await EngineFixture.errorCode { try await fixture.refresh(refresh) } == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.refresh(rotated.refresh_token) } == "invalid_grant")
        #expect(await EngineFixture.errorCode {
            try await fixture.engine.validation.validate(accessToken: rotated.access_token, basic: nil)
        } == "invalid_token")
    }

    @Test("a token two rotations back is reuse even within 10 s")
    func olderTokenIsReuse() async throws {
        let fixture = try await EngineFixture()
        let first = try await fixture.passwordGrant().refresh_token
        let second = try await fixture.refresh(first).refresh_token
        let third = try await fixture.refresh(second).refresh_token
        #expect(await EngineFixture.errorCode { try await fixture.refresh(first) } == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.refresh(third) } == "invalid_grant")
    }

    @Test("a token issued after client authentication needs it again (and the failed try is not reuse); a public client's does not")
    func boundToClientAuthentication() async throws {
        let fixture = try await EngineFixture()
        let confidential = try await fixture.exchange(try await fixture.code()).refresh_token
        #expect(await EngineFixture.errorCode { try await fixture.refresh(confidential, basic: nil) } == "invalid_client")
        #expect(await EngineFixture.errorCode { try await fixture.refresh(confidential) } == nil)
        let publicClient = try await fixture.exchange(try await fixture.code(), basic: nil).refresh_token
        #expect(await EngineFixture.errorCode { try await fixture.refresh(publicClient, basic: nil) } == nil)
    }

    @Test("the grant on its own refuses an unauthenticated client a family issued to an authenticated one")
    func grantAlone() async throws {
        let fixture = try await EngineFixture()
        let issued = try await fixture.passwordGrant()
        let grant = try #require(fixture.engine.tokens.grants[RefreshTokenGrant.grantType])
        let client = try #require(try await fixture.engine.clients.resolve(EngineFixture.appKey))
        let parameters = try EngineFixture.parameters([("refresh_token", try #require(issued.refresh_token))])
        let keys = fixture.engine.state.keys
        #expect(await EngineFixture.errorCode {
            try await grant.grant(parameters, client: AuthenticatedClient(client: client, authenticated: false), keys: keys, clientAddress: nil)
        } == "invalid_client")
        let rotated = try await grant.grant(parameters, client: AuthenticatedClient(client: client, authenticated: true), keys: keys,
                                            clientAddress: nil)
        #expect(rotated.refresh_token != nil)
    }

    @Test("another client, a stray redirect_uri, refreshTtl and refresh: false")
    func clientLifetimeAndSettings() async throws {
        let services = EngineFixture.defaultServices.map { service in
            var changed = service
            if service.id == "users" { changed.refreshTtl = 100 }
            return changed
        }
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: services)])
        let refresh = try await fixture.passwordGrant().refresh_token
        #expect(await EngineFixture.errorCode { try await fixture.refresh(refresh, clientId: "\(EngineFixture.appKey).opaque") }
            == "invalid_grant")
        let rotated = try await fixture.refresh(refresh, extra: [("redirect_uri", "undefined")])
        fixture.clock.advance(101)
        #expect(await EngineFixture.errorCode { try await fixture.refresh(rotated.refresh_token) } == "invalid_grant")
        #expect(try await fixture.passwordGrant(clientId: "\(EngineFixture.appKey).norefresh").refresh_token == nil)
    }

    @Test("resource narrows one access token to declared audiences of the grant; never wider, and the next refresh is whole again")
    func narrowingResources() async throws {
        let (a, b) = ("https://a.example.com", "https://b.example.com")
        let environment = EngineFixture.environment {
            $0.apiResources = [APIResource(scope: "api:a", audience: a), APIResource(scope: "api:b", audience: b)]
        }
        let fixture = try await EngineFixture(environments: [environment])
        let granted = try await fixture.passwordGrant(scope: "openid api:a api:b")
        #expect(Self.audiences(granted) == [a, b])
        let narrowed = try await fixture.refresh(granted.refresh_token, extra: [("resource", a)])
        #expect(Self.audiences(narrowed) == [a])
        #expect(await EngineFixture.errorCode {
            try await fixture.refresh(narrowed.refresh_token, extra: [("resource", "https://c.example.com")])
        } == "invalid_target")
        #expect(Self.audiences(try await fixture.refresh(narrowed.refresh_token)) == [a, b])
    }

    /// The `aud` of a response's access token, one or several.
    static func audiences(_ response: TokenResponse) -> [String] {
        switch EngineFixture.claims(response.access_token)["aud"] {
        case .string(let one): [one]
        case .array(let many): many.compactMap(\.stringValue).sorted()
        default: []
        }
    }
}
