import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import StoreContracts
import Testing

/// `response_mode` (OAuth 2.0 Multiple Response Types §2, Form Post Response Mode;
/// docs/protocol.md, "Response modes"): the answer to the redirect URI, a code or an error, goes
/// back the way the authorization asked, through the login form and an SSO sign-in alike.
@Suite("Response modes")
struct ResponseModeTests {
    static func pairs(_ mode: String, _ extra: [(String, String)] = []) -> [(String, String)] {
        EngineFixture.authorizationPairs() + [("response_mode", mode)] + extra
    }

    @Test("form_post and fragment carry state, iss and code (last) in their mode, through the login form and SSO")
    func codes() async throws {
        let fixture = try await EngineFixture()
        var browser = BrowserContext()
        let posted = try await fixture.signedIn(Self.pairs("form_post"), browser: &browser).redirect
        #expect(posted.mode == .formPost && posted.redirectURI == EngineFixture.redirect)
        #expect(posted.fields.map(\.name) == ["state", "iss", "code"])
        #expect(posted["state"] == "st" && posted["iss"] == EngineFixture.issuer)
        #expect(try await fixture.exchange(try #require(posted["code"])).id_token != nil)

        guard case .redirect(let fragment, _) = try await fixture.authorize(Self.pairs("fragment"), browser: &browser) else {
            throw UnexpectedOutcome("expected an SSO sign-in")
        }
        #expect(fragment.mode == .fragment)
        #expect(fragment.url.hasPrefix(EngineFixture.redirect + "#state=st&iss=\(EngineFixture.encodedIssuer)&code="))
        guard case .redirect(let query, _) = try await fixture.authorize(Self.pairs("query"), browser: &browser) else {
            throw UnexpectedOutcome("expected an SSO sign-in")
        }
        #expect(query.mode == .query && query.url.hasPrefix(EngineFixture.redirect + "?state=st&iss="))
    }

    @Test("an error after the mode was read goes back in that mode; an unknown mode is reported in the query")
    func errors() async throws {
        let fixture = try await EngineFixture()
        var browser = BrowserContext()
        guard case .redirect(let posted, _) = try await fixture.authorize(Self.pairs("form_post", [("prompt", "none")]), browser: &browser) else {
            throw UnexpectedOutcome("expected an answer to the client")
        }
        #expect(posted.mode == .formPost && posted["error"] == "login_required" && posted["state"] == "st")
        #expect(posted["iss"] == EngineFixture.issuer)
        for mode in ["bogus", "FORM_POST", "query.jwt", "form_post "] {
            guard case .redirect(let answer, _) = try await fixture.authorize(Self.pairs(mode), browser: &browser) else {
                throw UnexpectedOutcome("expected an answer to the client for \(mode)")
            }
            #expect(answer.mode == .query && answer["error"] == "invalid_request", "\(mode)")
        }
    }

    @Test("a pushed request's response_mode counts (not the URL's); a pushed unknown mode is refused as JSON")
    func pushed() async throws {
        let fixture = try await EngineFixture()
        let pushed = try await fixture.engine.pushedAuthorizations.push(try EngineFixture.parameters(Self.pairs("form_post")),
                                                                        basic: EngineFixture.appCredentials, clientAddress: nil)
        var browser = BrowserContext()
        let form = try await fixture.loginForm([("client_id", EngineFixture.appKey), ("request_uri", pushed.request_uri),
                                                ("response_mode", "query")], browser: &browser)
        let completion = try #require(try await fixture.submit(form, browser: &browser).completion)
        #expect(completion.redirect.mode == .formPost && completion.redirect["code"] != nil)
        #expect(await EngineFixture.errorCode {
            try await fixture.engine.pushedAuthorizations.push(try EngineFixture.parameters(Self.pairs("jwt")),
                                                               basic: EngineFixture.appCredentials, clientAddress: nil)
        } == "invalid_request")
    }

    @Test("a pending authorization keeps its mode in the store, and one without a mode reads back as query")
    func stored() throws {
        var pending = PendingAuthorization(clientId: "c", appKey: "a", authServiceId: "s", redirectURI: "https://rp.example/cb",
                                           scope: "openid", state: nil, nonce: nil, codeChallenge: nil, mode: .browser,
                                           createdAt: Date(timeIntervalSinceReferenceDate: 1), expiresAt: Date(timeIntervalSinceReferenceDate: 2))
        #expect(try PendingAuthorization.fromStoredJSON(pending.storedJSON()).responseMode == nil)
        for mode in ResponseMode.allCases {
            pending.responseMode = mode
            #expect(try PendingAuthorization.fromStoredJSON(pending.storedJSON()) == pending)
        }
    }
}
