import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import OAuthEngine
import StoreContracts
import Testing

/// QR-code login (docs/qr-login.md) through HTTP: the browser's page and the app's API.
@Suite("QR-code login")
struct QRLoginTests {
    @Test("confirm: the showing browser signs in as the app's user, in the app's session; the code exchanges for that user")
    func confirm() async throws {
        let broker = try await QRFlows.make()
        try await broker.withClient(network: true) { client in
            let browser = try await QRFlows.show(client)
            #expect(browser.page.text.contains(#"<img id="qr-code" src="data:image/png;base64,"#))
            #expect(browser.page.headers[.contentSecurityPolicy]?.contains("script-src 'nonce-") == true)
            // On the phone that shows it, the code cannot be scanned: the password form of the same sign-in is a link away.
            let password = try #require(QRFlows.capture(#"id="qr-password" href="([^"]+)""#, in: browser.page.text))
            #expect(browser.page.text.contains(#"id="qr-password-phone""#))
            let form = try await client.get(pathOf(password),
                                            headers: [.cookie: "idc_csrf=\(browser.cookie)"])
            #expect(form.status == .ok && form.text.contains(#"name="password""#), "\(form.text)")
            let token = try await QRFlows.appToken(client)

            let info = try await QRFlows.api(client, browser.code, token: token)
            #expect(info.status == .ok)
            #expect(info.json["ip"] as? String == "127.0.0.1")
            #expect(info.json["rp_id"] as? String == TestBroker.appKey)
            #expect(info.json["rp_name"] as? String == "Test users")
            #expect(info.json["browser"] as? String == "Chrome 120")
            #expect(info.json["os"] as? String == "macOS 10.15.7")
            #expect(info.json["device_type"] as? String == "pc")
            #expect(info.json["ip_country"] == nil)

            #expect(try await QRFlows.state(client, browser) == "pending")
            #expect(try await QRFlows.api(client, browser.code, "confirm", token: token).status == .noContent)
            #expect(try await QRFlows.state(client, browser) == "confirmed")
            let finished = try await QRFlows.finish(client, browser)
            #expect(finished.status == .found)
            let location = try #require(finished.location)
            #expect(location.hasPrefix(TestBroker.redirect + "?state=st-1&iss=\(TestBroker.encodedIssuer)&code="))
            #expect(finished.cookies["idc_sso"] != nil)
            let tokens = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", try redirectCode(finished)), ("redirect_uri", TestBroker.redirect),
                ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)]).json
            let webAccess = try #require(tokens["access_token"] as? String)
            #expect(try await Flows.validate(client, webAccess).json["id"] as? String == "alice")

            // One session: the app's. Ending it ends the browser's sign-in too.
            let sessions = try await broker.engine.storage.sessions.liveSessions(authServiceId: "users", user: "alice", at: broker.clock.now(), limit: 10)
            #expect(sessions.count == 1)
            try await broker.engine.storage.sessions.revokeSession(id: try #require(sessions.first).id, at: broker.clock.now())
            #expect(try await Flows.validate(client, webAccess).status == .unauthorized)
            #expect(try await Flows.validate(client, token).status == .unauthorized)
            // The code was used: answering again is a conflict; finishing again is refused.
            #expect(try await QRFlows.api(client, browser.code, "confirm", token: try await QRFlows.appToken(client)).status == .conflict)
            #expect(try await QRFlows.finish(client, browser).status == .badRequest)
        }
    }

    @Test("refuse: the browser shows why and offers the way back with access_denied; unauthorized is a security event")
    func refuse() async throws {
        let broker = try await QRFlows.make()
        try await broker.withClient { client in
            let token = try await QRFlows.appToken(client)
            let first = try await QRFlows.show(client)
            let bad = try await QRFlows.api(client, first.code, "refuse", token: token, body: #"{"cause_id":"bored"}"#)
            #expect(bad.status == .badRequest && bad.json["error"] as? String == "invalid_request")
            #expect(try await QRFlows.api(client, first.code, "refuse", token: token, body: "not json").status == .badRequest)
            let refused = try await QRFlows.api(client, first.code, "refuse", token: token,
                                                body: #"{"cause_id":"unauthorized","desc":"not me"}"#)
            #expect(refused.status == .noContent)
            #expect(try await QRFlows.state(client, first) == "refused")
            let page = try await QRFlows.finish(client, first)
            #expect(page.status == .forbidden)
            let back = try #require(QRFlows.capture(#"id="qr-back" href="([^"]+)""#, in: page.text))
            #expect(queryItems(back)["error"] == "access_denied" && queryItems(back)["state"] == "st-1" && back.hasPrefix(TestBroker.redirect))
            #expect(try await QRFlows.api(client, first.code, "confirm", token: token).status == .conflict)

            let second = try await QRFlows.show(client)
            #expect(try await QRFlows.api(client, second.code, "refuse", token: token, body: #"{"cause_id":"mistake"}"#).status == .noContent)
            let metrics = try await client.get("/metrics").text
            #expect(metrics.contains(#"idconnect_audit_events_total{event="qr.refused"} 2"#))
            #expect(metrics.contains(#"idconnect_security_events_total{kind="qr_refused_unauthorized"} 1"#))
        }
    }

    @Test("expiry: the app hears 410, the page offers a new code, which works")
    func expiry() async throws {
        let broker = try await QRFlows.make()
        try await broker.withClient { client in
            let browser = try await QRFlows.show(client)
            broker.clock.advance(61)
            let token = try await QRFlows.appToken(client)
            let late = try await QRFlows.api(client, browser.code, "confirm", token: token)
            #expect(late.status == .gone && late.json["error"] as? String == "qr_session_expired" && late.json["type"] as? String == "process_error")
            #expect(try await QRFlows.state(client, browser) == "expired")
            let page = try await QRFlows.finish(client, browser)
            #expect(page.status == .gone)
            let restart = try #require(QRFlows.capture(#"id="qr-new" href="([^"]+)""#, in: page.text))
            let fresh = try await client.get(pathOf(restart), headers: browser.headers)
            let code = try #require(QRFlows.capture(#"data-finish="[^"]*code=([0-9a-f-]{36})""#, in: fresh.text))
            #expect(code != browser.code)
            #expect(try await QRFlows.api(client, code, "confirm", token: token).status == .noContent)
            var renewed = browser
            renewed.code = code
            #expect(try await QRFlows.finish(client, renewed).status == .found)
        }
    }

    @Test("the API's refusals: no token, a bad or expired one, the wrong scope or auth service, an unknown code — exact bodies")
    func refusals() async throws {
        let broker = try await QRFlows.make()
        try await broker.withClient { client in
            let browser = try await QRFlows.show(client)
            func expectError(_ answer: TestResponse, _ status: HTTPResponse.Status, _ fields: [String: String],
                             sourceLocation: Testing.SourceLocation = #_sourceLocation) {
                #expect(answer.status == status, sourceLocation: sourceLocation)
                for (key, value) in fields { #expect(answer.json[key] as? String == value, "\(key)", sourceLocation: sourceLocation) }
            }
            let bad = ["type": "security_error", "error": "bad_access_token"]
            expectError(try await QRFlows.api(client, browser.code, token: nil), .unauthorized, bad.merging(["desc": "invalid_access_token"]) { $1 })
            expectError(try await QRFlows.api(client, browser.code, "confirm", token: "garbage"), .unauthorized,
                        bad.merging(["desc": "invalid_access_token"]) { $1 })
            let noScope = try await QRFlows.appToken(client, scope: "openid")
            expectError(try await QRFlows.api(client, browser.code, "confirm", token: noScope), .unauthorized,
                        bad.merging(["desc": "insufficient_scope"]) { $1 })
            let otherService = try await QRFlows.appToken(client, clientId: TestBroker.appKey + ".opaque")
            expectError(try await QRFlows.api(client, browser.code, "confirm", token: otherService), .forbidden,
                        bad.merging(["desc": "wrong_auth_service"]) { $1 })
            let token = try await QRFlows.appToken(client)
            let unknown = try await QRFlows.api(client, UUID().uuidString.lowercased(), token: token)
            expectError(unknown, .notFound, ["error": "qr_session_not_found"])
            #expect((unknown.json["params"] as? [String: Any])?.isEmpty == true)
            expectError(try await QRFlows.api(client, "not-a-uuid", "confirm", token: token), .notFound, ["error": "qr_session_not_found"])
            // Nothing above settled it.
            #expect(try await QRFlows.state(client, browser) == "pending")
            broker.clock.advance(601)
            expectError(try await QRFlows.api(client, browser.code, token: token), .unauthorized, bad.merging(["desc": "expired_access_token"]) { $1 })
        }
    }

    @Test("only the browser that shows the code learns its state or finishes it; the code alone signs nobody in")
    func otherBrowser() async throws {
        let broker = try await QRFlows.make()
        try await broker.withClient { client in
            let browser = try await QRFlows.show(client)
            #expect(try await QRFlows.api(client, browser.code, "confirm", token: try await QRFlows.appToken(client)).status == .noContent)
            var stranger = browser
            stranger.cookie = Secrets.randomToken()
            #expect(try await QRFlows.state(client, stranger) == "unknown")
            #expect(try await QRFlows.finish(client, stranger).status == .badRequest)
            #expect(try await client.get("/oauth/qr/finish?code=\(browser.code)").status == .badRequest)
            let start = try #require(QRFlows.capture(#"id="qr-start" href="([^"]+)""#,
                                                     in: try await client.get("/oauth/auth?" + formEncode([
                                                        ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect),
                                                        ("response_type", "code")])).text))
            #expect(try await client.get(pathOf(start), headers: stranger.headers).status == .badRequest)
            // The rightful browser still finishes.
            #expect(try await QRFlows.finish(client, browser).status == .found)
        }
    }

    @Test("the login page offers QR only where configured; GET /oauth/qr explains what to do; a pending code shows the page again")
    func pages() async throws {
        let broker = try await QRFlows.make()
        try await broker.withClient { client in
            let plain = try await client.get("/oauth/auth?" + formEncode([("client_id", TestBroker.appKey + ".opaque"),
                                                                          ("redirect_uri", TestBroker.redirect), ("response_type", "code")]))
            #expect(!plain.text.contains("qr-start"))
            let hint = try await client.get("/oauth/qr?code=\(UUID().uuidString.lowercased())")
            #expect(hint.status == .ok && hint.text.contains("Scan with the app"))
            let browser = try await QRFlows.show(client)
            let again = try await QRFlows.finish(client, browser)
            #expect(again.status == .ok && again.text.contains("qr-code"))
        }
    }

    @Test("two instances on PostgreSQL: the app confirms on one while the browser waits on the other",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func twoInstances() async throws {
        let first = try await TestBroker.make(files: QRFlows.files(), backend: .postgres)
        let second = try await first.sibling()
        try await first.withClient { browserSide in
            try await second.withClient { appSide in
                let browser = try await QRFlows.show(browserSide)
                let token = try await QRFlows.appToken(appSide)
                async let waited = browserSide.get("/oauth/qr/status?code=\(browser.code)", headers: browser.headers)
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await QRFlows.api(appSide, browser.code, "confirm", token: token).status == .noContent)
                #expect(try await waited.json["state"] as? String == "confirmed")
                #expect(try await QRFlows.finish(browserSide, browser).status == .found)
            }
        }
    }
}

@Suite("QR-code login: configuration")
struct QRLoginConfigTests {
    @Test("qrLogin values are checked; it is refused where the broker's login page is not used")
    func problems() async throws {
        let qrLogin = #"        qrLogin: { enabled: true, ttl: 5, qrUrl: "https://a.example/qr?x=1", scope: "two words", colour: red }"#
        let problems = try ConfigLoaderTests.problems(["x.yaml": """
            environments:
              - appKey: kid_x
                authServices:
            \(ConfigLoaderTests.service("s1", extra: qrLogin))
            """])
        for expected in ["between 10 and 3600", "no query or fragment", "one scope token", "colour: unknown key"] {
            #expect(problems.contains { $0.description.contains(expected) }, "\(expected)")
        }
        let service = OAuthPeerFixture.service("o", type: "openid-connect", options: "issuerId: \"https://idp.example.com\", clientId: c")
            .replacingOccurrences(of: "        tokenTtl: 86400", with: "        qrLogin: { enabled: true }\n        tokenTtl: 86400")
        let saml = try await OAuthConfigAndJOSETests.problems(service)
        #expect(saml.contains { $0.contains("qrLogin") && $0.contains("login page") }, "\(saml)")
    }
}
