import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import OAuthEngine
import Testing

/// App-to-web SSO with the one-time `css` value, and the account chooser
/// (docs/protocol.md, "App-to-web SSO" and "SSO").
@Suite("App-to-web SSO and prompt=select_account")
struct WebSSOTests {
    /// `GET /oauth/auth` of the web client (the default auth service, like the instance) with a cookie header.
    static func webAuthorize(_ client: any TestClientProtocol, clientId: String = TestBroker.appKey, cookie: String?,
                             prompt: String? = nil) async throws -> TestResponse {
        try await client.get(InstanceFlows.authorizeQuery(clientId: clientId, redirect: TestBroker.redirect, scope: "openid", prompt: prompt),
                             headers: cookie.map { [.cookie: $0] } ?? [:])
    }

    @Test("scope=native returns a css value; a browser presenting it signs in as that user once, without the form")
    func carriesOver() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let tokens = try await InstanceFlows.signIn(client, instance).json
            let css = try #require(tokens["css"] as? String)
            let appSubject = try #require(try await broker.engine.storage.registeredClients.registeredClient(id: instance.clientId)?.boundSubject)

            let web = try await Self.webAuthorize(client, cookie: "css=\(css)")
            #expect(web.status == .found)
            let location = try #require(web.location)
            #expect(location.hasPrefix(TestBroker.redirect + "?state=st&iss=\(TestBroker.encodedIssuer)&code="))
            #expect(web.headers[values: .setCookie].contains { $0.hasPrefix("css=;") && $0.contains("Max-Age=0") })
            #expect(web.cookies["idc_sso"] != nil)
            let exchange = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", try #require(queryItems(location)["code"])),
                ("redirect_uri", TestBroker.redirect), ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)])
            #expect(exchange.status == .ok)
            let idToken = try #require(exchange.json["id_token"] as? String)
            let payload = try #require(Base64URL.decode(String(idToken.split(separator: ".")[1])))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["sub"] as? String == appSubject)

            // Single use: the same value again shows the form.
            let again = try await Self.webAuthorize(client, cookie: "css=\(css)")
            #expect(again.status == .ok)
            #expect(LoginFormFields(html: again.text) != nil)
        }
    }

    @Test("css refused after 300 s, for another auth service, after prompt=login, and when forged")
    func refusals() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            _ = try await InstanceFlows.signIn(client, instance)
            func mint() async throws -> String {
                let answer = try await InstanceFlows.relogin(client, instance, extra: [("scope", "native")])
                #expect(answer.status == .ok)
                return try #require(answer.json["css"] as? String)
            }
            let expiring = try await mint()
            broker.clock.advance(301)
            #expect(try await Self.webAuthorize(client, cookie: "css=\(expiring)").status == .ok)

            let otherService = try await mint()
            let opaque = try await Self.webAuthorize(client, clientId: "\(TestBroker.appKey).opaque", cookie: "css=\(otherService)")
            #expect(opaque.status == .ok)
            // That attempt used it up, even for the right client.
            #expect(try await Self.webAuthorize(client, cookie: "css=\(otherService)").status == .ok)

            let forced = try await mint()
            #expect(try await Self.webAuthorize(client, cookie: "css=\(forced)", prompt: "login").status == .ok)

            for forged in [String(repeating: "A", count: 43), "x", String(repeating: "%", count: 5000)] {
                let answer = try await Self.webAuthorize(client, cookie: "css=\(forged)")
                #expect(answer.status == .ok)
            }
            // prompt=none with a spent value is login_required at the redirect URI, never a 500.
            let none = try await Self.webAuthorize(client, cookie: "css=\(forced)", prompt: "none")
            #expect(queryItems(try #require(none.location))["error"] == "login_required")
        }
    }

    @Test("prompt=select_account lists the browser's accounts; choosing one signs in as it; another account shows the form")
    func selectAccount() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let first = try await InstanceFlows.browserSignIn(client, clientId: TestBroker.appKey, redirect: TestBroker.redirect, scope: "openid")
            let sso = try #require(first.cookies["idc_sso"])
            let second = try await InstanceFlows.browserSignIn(client, clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                               scope: "openid", username: "bob", password: "bobpw", cookies: "idc_sso=\(sso)")
            #expect(second.status == .found)
            let ssoBoth = second.cookies["idc_sso"] ?? sso

            let page = try await Self.webAuthorize(client, cookie: "idc_sso=\(ssoBoth)", prompt: "select_account")
            #expect(page.status == .ok)
            #expect(LoginFormFields(html: page.text) == nil)
            let links = AccountChooserLinks(html: page.text)
            #expect(links.accounts.count == 2)
            #expect(page.text.contains("Alice"))
            #expect(page.text.contains("bob"))
            let another = try #require(links.another)
            #expect(queryItems(another)["prompt"] == "login")

            let bobLink = try #require(links.accounts.first { queryItems($0)["login_hint"] == "bob" })
            #expect(queryItems(bobLink)["prompt"] == nil)
            #expect(queryItems(bobLink)["state"] == "st")
            let chosen = try await client.get(pathOf(bobLink), headers: [.cookie: "idc_sso=\(ssoBoth)"])
            #expect(chosen.status == .found)
            let chosenLocation = try #require(chosen.location)
            let code = try #require(queryItems(chosenLocation)["code"])
            let exchange = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)])
            let access = try #require(exchange.json["access_token"] as? String)
            #expect(try await Flows.validate(client, access).json["id"] as? String == "bob")

            let form = try await client.get(pathOf(another), headers: [.cookie: "idc_sso=\(ssoBoth)"])
            #expect(form.status == .ok)
            #expect(LoginFormFields(html: form.text) != nil)

            // No remembered account: straight to the form.
            let fresh = try await Self.webAuthorize(client, cookie: nil, prompt: "select_account")
            #expect(LoginFormFields(html: fresh.text) != nil)
        }
    }
}

/// The links a browser finds on the account chooser.
struct AccountChooserLinks {
    var accounts: [String] = []
    var another: String?

    init(html: String) {
        func unescape(_ text: String) -> String {
            text.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#x2F;", with: "/")
                .replacingOccurrences(of: "&#x3D;", with: "=")
        }
        func captures(_ pattern: String) -> [String] {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
            return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { match in
                Range(match.range(at: 1), in: html).map { unescape(String(html[$0])) }
            }
        }
        accounts = captures(#"<a class="account" href="([^"]+)""#)
        another = captures(#"<a id="another-account" href="([^"]+)""#).first
    }
}
