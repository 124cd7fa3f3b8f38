import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// A browser showing a QR code: its binding cookie and the code.
struct QRBrowser {
    var cookie: String
    var code: String
    var page: TestResponse

    var headers: HTTPFields { [.cookie: "idc_csrf=\(cookie)"] }
}

/// Steps of QR-code login, through HTTP as the browser and the app take them.
enum QRFlows {
    static let chromeOnMac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

    /// The default test configuration with `qrLogin` on the `users` auth service.
    static func files(_ qrLogin: String = "{ enabled: true, ttl: 60 }") -> [String: String] {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!
            .replacingOccurrences(of: "        grantTtl: 60\n", with: "        grantTtl: 60\n        qrLogin: \(qrLogin)\n")
        return files
    }

    static func make(backend: StoreBackend = .sqlite) async throws -> TestBroker {
        try await TestBroker.make(files: files(), backend: backend)
    }

    /// Opens the login page and follows "Sign in with a QR code".
    /// `extra` parameters go along with the authorization request (`response_mode`, …).
    static func show(_ client: any TestClientProtocol, forwardedFor: String? = nil, extra: [(String, String)] = []) async throws -> QRBrowser {
        let query = formEncode([("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                                ("scope", "openid"), ("state", "st-1"), ("code_challenge", Flows.challenge),
                                ("code_challenge_method", "S256")] + extra)
        let login = try await client.get("/oauth/auth?" + query)
        let cookie = try #require(login.cookies["idc_csrf"])
        let start = try #require(capture(#"id="qr-start" href="([^"]+)""#, in: login.text))
        var headers: HTTPFields = [.cookie: "idc_csrf=\(cookie)", .userAgent: chromeOnMac, .acceptLanguage: "de-CH,de;q=0.9"]
        if let forwardedFor { headers[.init("X-Forwarded-For")!] = forwardedFor }
        let page = try await client.get(pathOf(start), headers: headers)
        #expect(page.status == .ok)
        let code = try #require(capture(#"data-finish="[^"]*code=([0-9a-f-]{36})""#, in: page.text))
        return QRBrowser(cookie: cookie, code: code, page: page)
    }

    /// An access token of the app, from the password grant, with `scope`.
    static func appToken(_ client: any TestClientProtocol, scope: String = "openid blitz_qr_auth",
                         clientId: String = TestBroker.appKey, username: String = "alice", password: String = "alicepw") async throws -> String {
        let answer = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", username),
                                                                ("password", password), ("scope", scope), ("client_id", clientId)],
                                               headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
        return try #require(answer.json["access_token"] as? String, "\(answer.text)")
    }

    static func api(_ client: any TestClientProtocol, _ code: String, _ action: String? = nil, token: String?,
                    body: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let path = "/api/v3/auth/qr/\(code)" + (action.map { "/\($0)" } ?? "")
        guard let action else { return try await client.get(path, headers: headers) }
        headers[.contentType] = "application/json"
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body ?? ""))
    }

    static func state(_ client: any TestClientProtocol, _ browser: QRBrowser) async throws -> String? {
        try await client.get("/oauth/qr/status?code=\(browser.code)&wait=0", headers: browser.headers).json["state"] as? String
    }

    static func finish(_ client: any TestClientProtocol, _ browser: QRBrowser) async throws -> TestResponse {
        try await client.get("/oauth/qr/finish?code=\(browser.code)", headers: browser.headers)
    }

    static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#x2F;", with: "/")
    }
}
