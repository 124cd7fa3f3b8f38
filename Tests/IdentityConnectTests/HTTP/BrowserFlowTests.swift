import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import OAuthEngine
import Testing

@Suite("Hosted login page: the code flow as a browser drives it")
struct BrowserFlowTests {
    @Test("GET form, POST credentials with CSRF, redirect with code last, exchange with PKCE only")
    func codeFlowWithPKCE() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.browserLogin(client)
            #expect(location.hasPrefix(TestBroker.redirect + "?"))
            #expect(queryNames(location).last == "code")
            #expect(queryItems(location)["state"] == "s-123")
            let code = try #require(queryItems(location)["code"])
            // A public client: no secret, the verifier proves possession.
            let response = try await Flows.exchange(client, code: code, verifier: Flows.verifier, authenticate: false)
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "no-store")
            let body = response.json
            #expect(body["token_type"] as? String == "Bearer")
            #expect(body["expires_in"] as? Int == 600)
            #expect(body["scope"] as? String == "openid email")
            #expect(body["refresh_token"] is String)
            let idToken = try #require(body["id_token"] as? String)
            let accessToken = try #require(body["access_token"] as? String)

            // Verify the id_token with an independent JOSE library against the served JWKS.
            let jwks = try await client.get("/.well-known/jwks.json")
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks.text)
            let claims = try await keys.verify(idToken, as: IDClaims.self)
            #expect(claims.iss == "http://127.0.0.1:8080")
            #expect(claims.aud == TestBroker.appKey)
            #expect(claims.nonce == "n-456")
            #expect(claims.email == "alice@example.org")
            // Only what the scopes ask for (docs/security.md, rule 14): email, no name or groups.
            #expect(claims.groups == nil)
            #expect(claims.name == nil)
            #expect(claims.at_hash == AccessTokenHash.compute(accessToken))
            #expect(claims.exp == claims.iat + 600)
            let access = try await keys.verify(accessToken, as: AccessClaims.self)
            #expect(access.sub == claims.sub)
            #expect(access.client_id == TestBroker.appKey)
            // Whole-second times in the raw JSON (no fractions).
            let payload = String(decoding: Data(base64URL: idToken.split(separator: ".")[1])!, as: UTF8.self)
            for claim in ["exp", "iat", "auth_time"] {
                #expect(payload.range(of: "\"\(claim)\":[0-9]+[,}]", options: .regularExpression) != nil)
            }
        }
    }

    @Test("wrong password shows the form again with a message, then the right one signs in")
    func wrongPasswordThenRetry() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let page = try await Flows.loginPage(client)
            let form = try #require(LoginFormFields(html: page.text))
            let cookie = try #require(page.cookies["idc_csrf"])
            let wrong = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "nope")],
                                                  headers: [.cookie: "idc_csrf=\(cookie)"])
            #expect(wrong.status == .found)
            let again = try #require(wrong.location)
            #expect(queryItems(again)["error"] == "access_denied")
            #expect(!again.hasPrefix(TestBroker.redirect))
            let retryPage = try await client.get(pathOf(again), headers: [.cookie: "idc_csrf=\(cookie)"])
            #expect(retryPage.status == .ok)
            #expect(retryPage.text.contains("The username or password is incorrect."))
            let retryForm = try #require(LoginFormFields(html: retryPage.text))
            let right = try await client.postForm(pathOf(retryForm.action),
                                                  [("csrf_token", retryForm.csrfToken), ("username", "alice"), ("password", "alicepw")],
                                                  headers: [.cookie: "idc_csrf=\(cookie)"])
            #expect(right.location?.hasPrefix(TestBroker.redirect) == true)
            #expect(queryItems(right.location ?? "")["code"] != nil)
        }
    }

    @Test("an unknown user gets the same message as a wrong password")
    func unknownUserSameMessage() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let wrongPassword = try await Flows.automatedLogin(client, username: "alice", password: "x")
            let unknownUser = try await Flows.automatedLogin(client, username: "mallory", password: "x")
            #expect(queryItems(wrongPassword)["error_description"] == queryItems(unknownUser)["error_description"])
        }
    }

    @Test("the login form refuses a POST without the CSRF cookie or with another browser's token")
    func csrfRequired() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let page = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code")]))
            let form = try #require(LoginFormFields(html: page.text))
            let noCookie = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("username", "alice"), ("password", "alicepw")])
            #expect(noCookie.status == .badRequest)
            #expect(noCookie.location == nil)
            // Another browser's token: differs from the real one in its first character (always).
            let otherToken = (form.csrfToken.hasPrefix("A") ? "B" : "A") + String(form.csrfToken.dropFirst())
            let forged = try await client.postForm(pathOf(form.action), [("csrf_token", otherToken), ("username", "alice"), ("password", "alicepw")],
                                                   headers: [.cookie: "idc_csrf=\(otherToken)"])
            #expect(forged.status == .badRequest)
            #expect(forged.location == nil)
            // Without any token the POST is treated as an API call, which a browser-mode page refuses.
            let bare = try await client.postForm(pathOf(form.action), [("username", "alice"), ("password", "alicepw")])
            #expect(bare.status == .badRequest)
        }
    }

    @Test("customizedLogin css adds the stylesheet and allows its origin; page redirects with the temp login URI")
    func customizedLogin() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let styled = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", "\(TestBroker.appKey).styled"), ("redirect_uri", TestBroker.redirect), ("response_type", "code")]))
            #expect(styled.text.contains(#"<link rel="stylesheet" href="https:&#x2F;&#x2F;cdn.example.com&#x2F;login.css">"#)
                    || styled.text.contains(#"href="https://cdn.example.com/login.css""#))
            #expect(styled.headers[.contentSecurityPolicy]?.contains("https://cdn.example.com") == true)
            #expect(styled.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)

            let paged = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", "\(TestBroker.appKey).page"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("state", "xyz")]))
            #expect(paged.status == .found)
            let location = try #require(paged.location)
            #expect(location.hasPrefix("https://login.example.com/page?"))
            let tempLogin = try #require(queryItems(location)["temp_login_uri"])
            let answer = try await client.postForm(pathOf(tempLogin), [("username", "bob"), ("password", "bobpw")])
            #expect(answer.location?.hasPrefix(TestBroker.redirect + "?state=xyz&iss=\(TestBroker.encodedIssuer)&code=") == true)
        }
    }

    @Test("login_hint prefills the username; every /oauth path also answers under /v1, /v2, /v3")
    func loginHintAndPrefixes() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            for prefix in ["", "/v1", "/v2", "/v3"] {
                let page = try await client.get("\(prefix)/oauth/auth?" + formEncode([
                    ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                    ("login_hint", "bob")]))
                #expect(page.status == .ok)
                #expect(page.text.contains(#"value="bob""#))
                let location = try await Flows.automatedLogin(client, prefix: prefix)
                #expect(queryItems(location)["code"] != nil)
            }
        }
    }
}

struct IDClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var exp: Int
    var iat: Int
    var auth_time: Int
    var nonce: String?
    var at_hash: String?
    var email: String?
    var groups: [String]?
    var name: String?
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

struct AccessClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var exp: Int
    var jti: String
    var client_id: String
    var scope: String
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension Data {
    init?(base64URL text: Substring) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
