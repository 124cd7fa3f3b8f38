import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import IdentityCore
@testable import IdentityApp
import OAuthEngine
import Testing

/// `response_mode` over HTTP (docs/protocol.md, "Response modes"): `form_post` answers with a page
/// that posts the fields by itself under a CSP whose one script is allowed by its nonce; `fragment`
/// redirects with the fields after `#`; discovery lists the three modes. Chromium runs the page in
/// Tests/browser/response_mode_test.py.
@Suite("Response modes over HTTP")
struct ResponseModeHTTPTests {
    /// The hidden fields of an auto-posting page, by name.
    static func hiddenFields(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for match in html.matches(of: /<input type="hidden" name="([^"]*)" value="([^"]*)">/) {
            fields[String(match.1)] = String(match.2).replacingOccurrences(of: "&amp;", with: "&")
        }
        return fields
    }

    @Test("form_post: a page posting state, iss and code to the redirect URI, its script allowed by nonce only; the code exchanges")
    func formPost() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let page = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("scope", "openid"),
                ("state", "s<1>"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256"), ("response_mode", "form_post"),
            ]))
            let form = try #require(LoginFormFields(html: page.text))
            let cookie = try #require(page.cookies["idc_csrf"])
            let answer = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "alicepw")],
                                                   headers: [.cookie: "idc_csrf=\(cookie)"])
            #expect(answer.status == .ok && answer.location == nil)
            #expect(answer.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(answer.headers[.cacheControl] == "no-store" && answer.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(answer.text.contains(#"<form method="post" action="\#(TestBroker.redirect)""#))
            #expect(!answer.text.contains("s<1>"), "the state is escaped in the page")
            let fields = Self.hiddenFields(answer.text)
            #expect(fields["state"] == "s&lt;1&gt;" && fields["iss"] == "http://127.0.0.1:8080")
            let policy = try #require(answer.headers[.contentSecurityPolicy])
            let nonce = try #require(policy.firstMatch(of: /script-src 'nonce-([A-Za-z0-9_-]+)'/)?.1)
            #expect(answer.text.contains(#"<script nonce="\#(nonce)">"#))
            #expect(policy.contains("default-src 'none'") && !policy.contains("script-src 'unsafe-inline'"))
            let tokens = try await Flows.exchange(client, code: try #require(fields["code"]), verifier: Flows.verifier)
            #expect(tokens.status == .ok)
        }
    }

    @Test("fragment: the fields after #, none in the query; errors in form_post mode are posted; discovery lists the modes")
    func fragmentErrorsAndDiscovery() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.browserLogin(client, extra: [("scope", "openid"), ("state", "fr"), ("response_mode", "fragment")])
            #expect(location.hasPrefix(TestBroker.redirect + "#state=fr&iss=\(TestBroker.encodedIssuer)&code="))
            let error = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("state", "e"),
                ("response_mode", "form_post"), ("prompt", "none"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256"),
            ]))
            #expect(error.status == .ok)
            let fields = Self.hiddenFields(error.text)
            #expect(fields["error"] == "login_required" && fields["state"] == "e" && fields["iss"] == "http://127.0.0.1:8080")
            let unknown = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("response_mode", "jwt"),
            ]))
            #expect(unknown.status == .found && unknown.location?.hasPrefix(TestBroker.redirect + "?error=invalid_request") == true)
            let discovery = try await client.get("/.well-known/openid-configuration").json
            #expect(discovery["response_modes_supported"] as? [String] == ["query", "fragment", "form_post"])
        }
    }

    @Test("QR login refused by the app in form_post mode: the way back is a form posting the error, not a link")
    func qrRefusedFormPost() async throws {
        let broker = try await QRFlows.make()
        try await broker.withClient { client in
            let token = try await QRFlows.appToken(client)
            let browser = try await QRFlows.show(client, extra: [("response_mode", "form_post")])
            #expect(try await QRFlows.api(client, browser.code, "refuse", token: token, body: #"{"cause_id":"mistake"}"#).status == .noContent)
            let page = try await QRFlows.finish(client, browser)
            #expect(page.status == .forbidden)
            #expect(!page.text.contains(#"<a id="qr-back""#))
            #expect(page.text.contains(#"<form method="post" action="\#(TestBroker.redirect)">"#))
            let fields = Self.hiddenFields(page.text)
            #expect(fields["error"] == "access_denied" && fields["state"] == "st-1" && fields["iss"] == "http://127.0.0.1:8080")
        }
    }

    @Test("the second step's script gets a URL to go to, or in form_post mode the fields to post")
    func passkeyAnswers() {
        let query = ClientAnswer(redirectURI: TestBroker.redirect, mode: .query, [("state", "s"), ("iss", "i"), ("code", "c")])
        #expect(Pages.answerJSON(query) == ["redirect": .string(TestBroker.redirect + "?state=s&iss=i&code=c")])
        let posted = ClientAnswer(redirectURI: TestBroker.redirect, mode: .formPost, [("state", "s"), ("iss", "i"), ("code", "c")])
        let fields: [JSONValue] = [("state", "s"), ("iss", "i"), ("code", "c")].map { .object(["name": .string($0.0), "value": .string($0.1)]) }
        #expect(Pages.answerJSON(posted) == ["post": .object(["action": .string(TestBroker.redirect), "fields": .array(fields)])])
    }
}
