import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `PushedAuthorizations` and `AuthorizeEndpoint` (RFC 9126; docs/api-resources.md, "Pushed
/// authorization requests"): a `request_uri` stands for the pushed parameters, once, for its
/// client, for 60 s.
@Suite("PushedAuthorizations")
struct PushedAuthorizationsTests {
    static func push(_ fixture: EngineFixture, clientId: String = EngineFixture.appKey,
                     basic: BasicCredentials = EngineFixture.appCredentials) async throws -> String {
        let pairs = EngineFixture.authorizationPairs(clientId: clientId).map { $0.0 == "state" ? ($0.0, "pushed-state") : $0 }
        let pushed = try await fixture.engine.pushedAuthorizations.push(try EngineFixture.parameters(pairs), basic: basic, clientAddress: nil)
        #expect(pushed.expires_in == 60)
        return pushed.request_uri
    }

    static func authorize(_ fixture: EngineFixture, _ uri: String, clientId: String = EngineFixture.appKey) async throws -> AuthorizeOutcome {
        var browser = BrowserContext()
        return try await fixture.authorize([("client_id", clientId), ("request_uri", uri), ("state", "url-state")], browser: &browser)
    }

    static func isErrorPage(_ outcome: AuthorizeOutcome) -> Bool {
        if case .errorPage = outcome { return true }
        return false
    }

    @Test("the request_uri brings the pushed parameters (not the URL's), once")
    func singleUse() async throws {
        let fixture = try await EngineFixture()
        let uri = try await Self.push(fixture)
        #expect(uri.hasPrefix(PushedAuthorizations.uriPrefix))
        var browser = BrowserContext()
        let form = try await fixture.loginForm([("client_id", EngineFixture.appKey), ("request_uri", uri), ("state", "url-state")],
                                               browser: &browser)
        let completion = try #require(try await fixture.submit(form, browser: &browser).completion)
        #expect(EngineFixture.query(completion.redirect)["state"] == "pushed-state")
        #expect(Self.isErrorPage(try await Self.authorize(fixture, uri)))
    }

    @Test("another client's, an expired and a forged request_uri: error pages")
    func refusedURIs() async throws {
        let fixture = try await EngineFixture()
        #expect(Self.isErrorPage(try await Self.authorize(fixture, try await Self.push(fixture), clientId: "\(EngineFixture.appKey).opaque")))
        let late = try await Self.push(fixture)
        fixture.clock.advance(61)
        #expect(Self.isErrorPage(try await Self.authorize(fixture, late)))
        #expect(Self.isErrorPage(try await Self.authorize(fixture, PushedAuthorizations.uriPrefix + "forged")))
    }

    @Test("pushing needs the client's secret")
    func authenticated() async throws {
        let fixture = try await EngineFixture()
        #expect(await EngineFixture.errorCode {
            try await Self.push(fixture, basic: BasicCredentials(user: EngineFixture.appKey, password: "wrong-secret-123"))
        } == "invalid_client")
    }

    @Test("requirePar: an unpushed request goes back with invalid_request; a pushed one signs in")
    func required() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: [
            EngineFixture.service("users") { $0.requirePar = true },
        ])])
        var browser = BrowserContext()
        let plain = try await fixture.authorize(EngineFixture.authorizationPairs(), browser: &browser)
        guard case .redirect(let location, _) = plain else { throw UnexpectedOutcome("\(plain)") }
        #expect(EngineFixture.query(location)["error"] == "invalid_request")
        guard case .loginForm = try await Self.authorize(fixture, try await Self.push(fixture)) else {
            throw UnexpectedOutcome("a pushed request did not show the login form")
        }
    }
}
