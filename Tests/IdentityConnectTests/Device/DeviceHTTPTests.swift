import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
@testable import IdentityApp
import OAuthEngine
import Testing

/// The device authorization grant over HTTP (docs/device-grant.md): the device's JSON endpoints,
/// the person's pages with their cookies and headers, and two instances sharing one store.
@Suite("Device grant over HTTP")
struct DeviceHTTPTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// The default test configuration with `deviceGrant` on the `users` auth service.
    static func files() -> [String: String] {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!
            .replacingOccurrences(of: "        grantTtl: 60\n", with: "        grantTtl: 60\n        deviceGrant: { enabled: true, interval: 5 }\n")
        return files
    }

    static func start(_ client: any TestClientProtocol, clientId: String = TestBroker.appKey) async throws -> TestResponse {
        try await client.postForm("/oauth/device_authorization", [("client_id", clientId), ("scope", "openid profile")],
                                  headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
    }

    static func poll(_ client: any TestClientProtocol, _ deviceCode: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", grantType), ("device_code", deviceCode)],
                                  headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
    }

    /// The person's side on `client`: the confirmation from `verification_uri_complete`, Continue,
    /// the login form, the callback. Returns the last page.
    static func approve(_ client: any TestClientProtocol, completeURI: String) async throws -> TestResponse {
        let confirmation = try await client.get(pathOf(completeURI))
        #expect(confirmation.status == .ok && confirmation.text.contains("Test users"))
        let binding = try #require(confirmation.cookies["idc_csrf"])
        let form = try #require(LoginFormFields(html: confirmation.text))
        let code = try #require(confirmation.text.firstMatch(of: /name="user_code" value="([A-Z]{8})"/)?.1)
        let started = try await client.postForm(pathOf(form.action), [("csrf_token", form.csrfToken), ("user_code", String(code)),
                                                                      ("decision", "allow")], headers: [.cookie: "idc_csrf=\(binding)"])
        #expect(started.status == .ok)
        let flow = try #require(started.cookies["idc_device"])
        let setCookie = started.headers[values: .setCookie].first { $0.hasPrefix("idc_device=") } ?? ""
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
        let login = try #require(LoginFormFields(html: started.text))
        let signedIn = try await client.postForm(pathOf(login.action), [("csrf_token", login.csrfToken), ("username", "alice"),
                                                                        ("password", "alicepw")], headers: [.cookie: "idc_csrf=\(binding)"])
        let callback = try #require(signedIn.location)
        #expect(callback.hasPrefix("http://127.0.0.1:8080/oauth/device/callback?"))
        return try await client.get(pathOf(callback), headers: [.cookie: "idc_csrf=\(binding); idc_device=\(flow)"])
    }

    @Test("the device's codes, the person's pages, the poll: tokens once, on SQLite and PostgreSQL, two instances",
          arguments: StoreBackend.allCases)
    func acrossInstances(backend: StoreBackend) async throws {
        let broker = try await TestBroker.make(files: Self.files(), backend: backend)
        let sibling = try await broker.sibling()
        let started = try await broker.withClient { try await Self.start($0) }
        #expect(started.status == .ok && started.headers[.cacheControl] == "no-store")
        let answer = started.json
        let deviceCode = try #require(answer["device_code"] as? String)
        let complete = try #require(answer["verification_uri_complete"] as? String)
        #expect(answer["verification_uri"] as? String == "http://127.0.0.1:8080/oauth/device")
        #expect(answer["expires_in"] as? Int == 600 && answer["interval"] as? Int == 5)
        let pending = try await broker.withClient { try await Self.poll($0, deviceCode) }
        #expect(pending.status == .badRequest && pending.json["error"] as? String == "authorization_pending")

        let done = try await sibling.withClient { try await Self.approve($0, completeURI: complete) }
        #expect(done.status == .ok && done.text.contains("Device signed in"))
        #expect(done.cookies["idc_device"] == "" && done.cookies["idc_sso"]?.isEmpty == false)
        broker.clock.advance(6)
        let tokens = try await broker.withClient { try await Self.poll($0, deviceCode) }
        #expect(tokens.status == .ok, "\(tokens.text)")
        #expect(tokens.json["access_token"] is String && tokens.json["id_token"] is String && tokens.json["refresh_token"] is String)
        let again = try await sibling.withClient { try await Self.poll($0, deviceCode) }
        #expect(again.json["error"] as? String == "invalid_grant")
    }

    @Test("errors are the RFC's JSON; other methods 405; the pages carry the strict CSP; /v3 works; discovery names it")
    func errorsAndSurface() async throws {
        let broker = try await TestBroker.make(files: Self.files())
        try await broker.withClient { client in
            let other = try await Self.start(client, clientId: "\(TestBroker.appKey).opaque")
            #expect(other.status == .badRequest && other.json["error"] as? String == "unauthorized_client")
            let unknown = try await client.postForm("/oauth/device_authorization", [("client_id", "kid_nobody")])
            #expect(unknown.status == .unauthorized && unknown.json["error"] as? String == "invalid_client")
            let garbage = try await Self.poll(client, "nope")
            #expect(garbage.status == .badRequest && garbage.json["error"] as? String == "invalid_grant")
            for (path, method) in [("/oauth/device_authorization", HTTPRequest.Method.get), ("/oauth/device", .delete),
                                   ("/oauth/device/confirm", .get), ("/oauth/device/callback", .post)] {
                #expect(try await client.execute(uri: path, method: method).status == .methodNotAllowed, "\(method) \(path)")
            }
            let page = try await client.get("/oauth/device")
            #expect(page.status == .ok && page.text.contains(#"id="user_code""#))
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true)
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            let wrong = try await client.get("/oauth/device?user_code=%3Cscript%3E")
            #expect(wrong.status == .badRequest && !wrong.text.contains("<script>") && wrong.text.contains("&lt;script&gt;"))
            let stale = try await client.get("/oauth/device/callback?state=x&code=y")
            #expect(stale.status == .badRequest && stale.text.contains("expired"))
            let versioned = try await client.postForm("/v3/oauth/device_authorization", [("client_id", TestBroker.appKey)],
                                                      headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            #expect(versioned.status == .ok)
            let discovery = try await client.get("/.well-known/openid-configuration").json
            #expect(discovery["device_authorization_endpoint"] as? String == "http://127.0.0.1:8080/oauth/device_authorization")
            #expect((discovery["grant_types_supported"] as? [String])?.contains(Self.grantType) == true)
        }
        // Guessing codes over a real connection: the 11th in a minute is the form again with 429 and Retry-After.
        try await broker.withClient(network: true) { client in
            var statuses: [Int] = []
            for _ in 0..<11 { statuses.append(Int(try await client.get("/oauth/device?user_code=BCDFGHJK").status.code)) }
            #expect(statuses == Array(repeating: 400, count: 10) + [429])
            let limited = try await client.get("/oauth/device?user_code=BCDFGHJK")
            #expect(limited.headers[.retryAfter] == "6" && limited.text.contains("Too many codes"))
        }
        // Where no auth service allows it, discovery names neither the endpoint nor the grant.
        try await TestBroker.make().withClient { client in
            let discovery = try await client.get("/.well-known/openid-configuration").json
            #expect(discovery["device_authorization_endpoint"] == nil)
            #expect((discovery["grant_types_supported"] as? [String])?.contains(Self.grantType) == false)
        }
    }
}
