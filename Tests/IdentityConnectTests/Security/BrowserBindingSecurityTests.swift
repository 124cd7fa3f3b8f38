import Foundation
import HummingbirdTesting
import IdentityCore
import OAuthEngine
import Testing

/// docs/security.md, rules 4 and 10: only the browser that started a sign-in gets the SSO cookie
/// from it, and every interactive sign-in issues a fresh SSO cookie value.
@Suite("Security: login CSRF and session fixation")
struct BrowserBindingSecurityTests {
    @Test("an API-mode temp login URI never sets the SSO cookie, even when a browser posts to it")
    func apiModeSetsNoSSO() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let start = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect),
                                                                  ("response_type", "code")])
            let tempLogin = try #require(start.json["temp_login_uri"] as? String)
            // Posted from a browser (it asks for HTML and carries a binding cookie of its own).
            let answer = try await client.postForm(pathOf(tempLogin), [("username", "alice"), ("password", "alicepw")],
                                                   headers: [.accept: "text/html", .cookie: "idc_csrf=\(Secrets.randomToken())"])
            #expect(answer.status == .found)
            #expect(queryItems(try #require(answer.location))["code"] != nil)
            #expect(answer.cookies["idc_sso"] == nil)
        }
    }

    @Test("the login form works only in the browser that loaded it: another binding cookie or none is refused")
    func formBoundToBrowser() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let page = try await client.get("/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect),
                                                                          ("response_type", "code")]))
            let form = try #require(LoginFormFields(html: page.text))
            let binding = try #require(page.cookies["idc_csrf"])
            let fields = [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "alicepw")]
            // An attacker's browser (its own binding cookie, set to the form's token) cannot use the form.
            let elsewhere = try await client.postForm(pathOf(form.action), fields, headers: [.cookie: "idc_csrf=\(Secrets.randomToken())"])
            #expect(elsewhere.status == .badRequest)
            #expect(elsewhere.location == nil)
            let planted = try await client.postForm(pathOf(form.action), fields, headers: [.cookie: "idc_csrf=\(form.csrfToken)"])
            #expect(planted.status == .badRequest)
            let ok = try await client.postForm(pathOf(form.action), fields, headers: [.cookie: "idc_csrf=\(binding)"])
            #expect(ok.status == .found)
            #expect(ok.cookies["idc_sso"] != nil)
        }
    }

    @Test("fixation: a planted SSO cookie never leads to the victim's new session; each sign-in issues a new value")
    func plantedSSOCookie() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            // The attacker signs in himself and keeps his SSO cookie value…
            let attacker = try await InstanceFlows.browserSignIn(client, clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                                 scope: "openid", username: "bob", password: "bobpw")
            let planted = try #require(attacker.cookies["idc_sso"])
            // …plants it in the victim's browser, where the victim signs in.
            let victim = try await InstanceFlows.browserSignIn(client, clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                               scope: "openid", cookies: "idc_sso=\(planted)")
            let fresh = try #require(victim.cookies["idc_sso"])
            #expect(fresh != planted)
            // The attacker's value no longer names any sign-in: prompt=none with it is login_required.
            let replay = try await client.get(InstanceFlows.authorizeQuery(clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                                          scope: "openid", prompt: "none"),
                                              headers: [.cookie: "idc_sso=\(planted)"])
            #expect(queryItems(try #require(replay.location))["error"] == "login_required")
            // The victim's own browser keeps SSO.
            let own = try await client.get(InstanceFlows.authorizeQuery(clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                                       scope: "openid", prompt: "none"),
                                           headers: [.cookie: "idc_sso=\(fresh)"])
            let code = try redirectCode(own)
            let tokens = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)])
            #expect(try await Flows.validate(client, try #require(tokens.json["access_token"] as? String)).json["id"] as? String == "alice")
        }
    }

    @Test("with an https issuer the cookies are __Host- prefixed and Secure")
    func hostPrefix() async throws {
        var files = TestBroker.defaultConfig()
        files["server.yaml"] = "server:\n  issuer: https://login.example.com\n"
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            let page = try await client.get("/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect),
                                                                          ("response_type", "code")]))
            let header = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("__Host-idc_csrf=") })
            #expect(header.contains("Secure") && header.contains("Path=/") && !header.lowercased().contains("domain="))
            let form = try #require(LoginFormFields(html: page.text))
            let binding = try #require(page.cookies["__Host-idc_csrf"])
            // The unprefixed name is not read: a cookie planted under it binds nothing.
            let unprefixed = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"),
                                                                             ("password", "alicepw")], headers: [.cookie: "idc_csrf=\(binding)"])
            #expect(unprefixed.status == .badRequest)
            let answer = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"),
                                                                         ("password", "alicepw")], headers: [.cookie: "__Host-idc_csrf=\(binding)"])
            #expect(answer.status == .found)
            let sso = try #require(answer.headers[values: .setCookie].first { $0.hasPrefix("__Host-idc_sso=") })
            #expect(sso.contains("Secure") && sso.contains("HttpOnly"))
        }
    }
}
