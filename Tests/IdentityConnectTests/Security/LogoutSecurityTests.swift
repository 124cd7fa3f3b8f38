import Foundation
import HummingbirdTesting
import IdentityCore
import OAuthEngine
import Testing

/// docs/security.md, rules 7 and 12: a logout ends sessions only in the browser that asks, and only
/// for an ID token hint of ours or after the person confirmed.
@Suite("Security: logout is the browser's")
struct LogoutSecurityTests {
    /// Signs alice in through the hosted page and the code exchange: the SSO cookie and the tokens.
    static func signIn(_ client: any TestClientProtocol) async throws -> (sso: String, idToken: String, access: String) {
        let answer = try await InstanceFlows.browserSignIn(client, clientId: TestBroker.appKey, redirect: TestBroker.redirect, scope: "openid")
        let code = try redirectCode(answer)
        let tokens = try await client.postForm("/oauth/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
            ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)]).json
        return (try #require(answer.cookies["idc_sso"]), try #require(tokens["id_token"] as? String),
                try #require(tokens["access_token"] as? String))
    }

    @Test("a hint without the browser's cookie, an access token as hint, or no hint: nothing ends without asking")
    func remoteLogoutRefused() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let (_, idToken, access) = try await Self.signIn(client)
            // Anyone holding the ID token (a resource server, a log) but not the browser's cookie.
            let remote = try await client.get("/oauth/logout?" + formEncode([("id_token_hint", idToken)]))
            #expect(remote.status == .ok)
            #expect(remote.text.contains("Sign out of Test users?"), "the question names the app of the ID token")
            #expect(try await Flows.validate(client, access).status == .ok)
            // An access token is not an ID token.
            let asHint = try await client.get("/oauth/logout?" + formEncode([("id_token_hint", access)]))
            #expect(asHint.status == .badRequest)
            #expect(try await Flows.validate(client, access).status == .ok)
            // Confirming from another browser ends that browser's sign-ins only (it has none).
            let page = try await client.get("/oauth/logout")
            let binding = try #require(page.cookies["idc_csrf"])
            let confirm = try await client.postForm("/oauth/logout", [("confirm", "yes"),
                ("csrf_token", LogoutEndpoint.csrfToken(browserBinding: binding)), ("id_token_hint", idToken)],
                headers: [.cookie: "idc_csrf=\(binding)"])
            #expect(confirm.status == .ok)
            #expect(try await Flows.validate(client, access).status == .ok)
        }
    }

    @Test("the confirmation form needs its CSRF token; confirmed in the signed-in browser, the sign-in ends")
    func confirmation() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let (sso, _, access) = try await Self.signIn(client)
            let page = try await client.get("/oauth/logout", headers: [.cookie: "idc_sso=\(sso)"])
            #expect(page.text.contains("Sign out?"))
            #expect(try await Flows.validate(client, access).status == .ok)
            let binding = try #require(page.cookies["idc_csrf"])
            // A cross-site form post: the attacker cannot know the token.
            let forged = try await client.postForm("/oauth/logout", [("confirm", "yes"), ("csrf_token", Secrets.randomToken())],
                                                   headers: [.cookie: "idc_sso=\(sso); idc_csrf=\(binding)"])
            #expect(forged.status == .badRequest)
            #expect(try await Flows.validate(client, access).status == .ok)
            let confirmed = try await client.postForm("/oauth/logout", [("confirm", "yes"),
                ("csrf_token", LogoutEndpoint.csrfToken(browserBinding: binding))], headers: [.cookie: "idc_sso=\(sso); idc_csrf=\(binding)"])
            #expect(confirmed.status == .ok)
            #expect(confirmed.text.contains("Signed out"))
            #expect(try await Flows.validate(client, access).status == .unauthorized)
        }
    }

    @Test("an expired ID token of ours for this browser's session still signs out without asking")
    func expiredHint() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let (sso, idToken, _) = try await Self.signIn(client)
            broker.clock.advance(3600)
            let out = try await client.get("/oauth/logout?" + formEncode([("id_token_hint", idToken),
                ("post_logout_redirect_uri", TestBroker.redirect), ("state", "s")]), headers: [.cookie: "idc_sso=\(sso)"])
            #expect(out.status == .found)
            #expect(out.location == TestBroker.redirect + "?state=s")
        }
    }
}
