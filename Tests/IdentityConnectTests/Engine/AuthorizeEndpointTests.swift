import Foundation
import IdentityCore
@testable import OAuthEngine
import Testing

/// The authorize decision without HTTP: what `/oauth/auth` answers for each kind of request.
@Suite("Authorize decision, without HTTP")
struct AuthorizeEndpointTests {
    static let valid = [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                        ("state", "st"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]

    static func outcome(_ harness: EngineHarness, _ pairs: [(String, String)], browser: BrowserContext = BrowserContext()) async throws -> AuthorizeResult {
        await harness.engine.authorize.authorize(try EngineHarness.parameters(pairs), browser: browser)
    }

    @Test("untrusted client or redirect URI: an error page, never a redirect", arguments: [
        [("redirect_uri", TestBroker.redirect), ("response_type", "code")],
        [("client_id", "kid_unknown"), ("redirect_uri", TestBroker.redirect), ("response_type", "code")],
        [("client_id", TestBroker.appKey), ("response_type", "code")],
        [("client_id", TestBroker.appKey), ("redirect_uri", "https://evil.example/cb"), ("response_type", "code")],
    ])
    func errorPages(pairs: [(String, String)]) async throws {
        let harness = try await EngineHarness.make()
        guard case .errorPage = try await Self.outcome(harness, pairs).outcome else {
            Issue.record("expected an error page")
            return
        }
    }

    @Test("bad parameters after a trusted redirect URI go back to the client with error and state", arguments: [
        ([("response_type", "token")], "invalid_request"),
        ([("code_challenge_method", "plain")], "invalid_request"),
        ([("prompt", "none")], "login_required"),
    ])
    func redirectedErrors(extra: [(String, String)], expected: String) async throws {
        let harness = try await EngineHarness.make()
        var pairs = Self.valid.filter { pair in !extra.contains { $0.0 == pair.0 } }
        pairs += extra
        guard case .redirect(let location, let sso) = try await Self.outcome(harness, pairs).outcome else {
            Issue.record("expected a redirect")
            return
        }
        #expect(location.hasPrefix(TestBroker.redirect + "?"))
        #expect(queryItems(location)["error"] == expected)
        #expect(queryItems(location)["state"] == "st")
        #expect(sso == nil)
    }

    @Test("a password auth service shows the login form bound to the browser; a page auth service redirects to it")
    func startSignIn() async throws {
        let harness = try await EngineHarness.make()
        let result = try await Self.outcome(harness, Self.valid)
        guard case .loginForm(let form) = result.outcome, let binding = result.binding else {
            Issue.record("expected the login form and a binding cookie")
            return
        }
        let id = String(form.action.split(separator: "/").last ?? "")
        #expect(form.csrfToken == PendingAuthorizations.formToken(pendingId: id, browserBinding: binding))
        // The browser's own binding is kept when it brought one.
        let kept = try await Self.outcome(harness, Self.valid, browser: BrowserContext(binding: binding))
        #expect(kept.binding == binding)
        let page = try await Self.outcome(harness, Self.valid.map { $0.0 == "client_id" ? ($0.0, "\(TestBroker.appKey).page") : $0 })
        guard case .customPage(let location) = page.outcome else {
            Issue.record("expected the customer's page")
            return
        }
        #expect(location.hasPrefix("https://login.example.com/page?temp_login_uri="))
    }

    @Test("an SSO session signs in without the form; prompt=login shows it; a planted css value is spent and refused")
    func existingSignIn() async throws {
        let harness = try await EngineHarness.make()
        let form = try await Self.outcome(harness, Self.valid)
        guard case .loginForm(let model) = form.outcome, let binding = form.binding else { throw CancellationError() }
        let id = String(model.action.split(separator: "/").last ?? "")
        let signedIn = try await harness.engine.passwordSignIn.signIn(
            pendingId: id, parameters: try EngineHarness.parameters([("username", "alice"), ("password", "alicepw")]),
            csrfToken: model.csrfToken, browser: BrowserContext(binding: binding))
        // The browser that started it gets its SSO cookie from the engine, with the code.
        guard case .finished(.signedIn(let completion)) = signedIn, completion.browserBound else { throw CancellationError() }
        let sso = try #require(completion.sso)
        let silent = try await Self.outcome(harness, Self.valid + [("prompt", "none")], browser: BrowserContext(ssoToken: sso.value))
        guard case .redirect(let location, _) = silent.outcome else { throw CancellationError() }
        #expect(queryItems(location)["code"] != nil)
        guard case .loginForm = try await Self.outcome(harness, Self.valid + [("prompt", "login")],
                                                        browser: BrowserContext(ssoToken: sso.value)).outcome else {
            Issue.record("prompt=login did not show the form")
            return
        }
        let planted = try await Self.outcome(harness, Self.valid, browser: BrowserContext(webSSOValue: Secrets.randomToken()))
        #expect(planted.clearWebSSO)
        guard case .loginForm = planted.outcome else {
            Issue.record("an unknown css value signed someone in")
            return
        }
    }
}
