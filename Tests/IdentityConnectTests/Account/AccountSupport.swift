import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import OAuthEngine
import Testing

/// What a test reads off an account page (docs/account.md).
struct AccountPage {
    let html: String

    private func all(_ pattern: String) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { match in
            (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: html).map { MFAPage.unescape(String(html[$0])) } ?? ""
            }
        }
    }

    var csrfToken: String? { MFAPage(html: html).csrfToken }
    var notice: String? { MFAPage(html: html).capture(#"id="notice">([^<]+)<"#) }
    var error: String? { MFAPage(html: html).error }
    /// The browser rows: session id, label, whether it is this browser.
    var browsers: [(id: String, label: String, current: Bool)] {
        all(#"data-session="([^"]+)"><strong>([^<]+)</strong>(<span class="tag">This browser</span>)?"#).map { ($0[0], $0[1], !$0[2].isEmpty) }
    }
    var apps: [String] { all(#"data-client="([^"]+)""#).map { $0[0] } }
    /// The app rows' "Offline access" answers, by client id.
    var offlineAccess: [String: String] {
        Dictionary(all(#"data-client="([^"]+)">.*?Offline access: (yes|no)"#).map { ($0[0], $0[1]) }, uniquingKeysWith: { $1 })
    }
    var devices: [String] { all(#"data-device="([^"]+)""#).map { $0[0] } }
    var passkeys: [(id: String, name: String)] { all(#"data-passkey="([^"]+)"><strong>([^<]+)</strong>"#).map { ($0[0], $0[1]) } }
    var recoveryCodes: [String] {
        guard let list = MFAPage(html: html).capture(#"<ul class="rows" id="recovery-codes">(.*?)</ul>"#) else { return [] }
        return AccountPage(html: list).all("<code>([^<]+)</code>").map { $0[0] }
    }
    var recoveryCodesLeft: String? { MFAPage(html: html).capture(#"id="recovery-left">([^<]+)<"#) }
    var hasFactorsSection: Bool { html.contains(">Second factors</h2>") }
}

/// The account page's form actions, as paths with the client id.
enum AccountPaths {
    static func page(_ clientId: String) -> String { "/account?client_id=\(RedirectURL.encode(clientId))" }
    static func action(_ path: String, _ clientId: String) -> String { "/account/\(path)?client_id=\(RedirectURL.encode(clientId))" }
}

extension MFABrowser {
    /// Follows redirects within the broker (303 and 302 to the issuer), keeping cookies.
    func follow(_ answer: TestResponse, issuer: String = "http://") async throws -> TestResponse {
        var answer = answer
        for _ in 0..<8 {
            guard answer.status == .found || answer.status == .seeOther, let location = answer.location,
                  location.hasPrefix("http://127.0.0.1:8080") || location.hasPrefix("http://localhost:8080") || location.hasPrefix("/") else { break }
            answer = try await get(location)
        }
        return answer
    }

    /// Opens the account page of `clientId`, signing in through the broker's own flow with the
    /// password (and `otp`, when the second step asks) when it shows the login form.
    func openAccount(_ clientId: String, username: String = "alice", password: String = "alicepw",
                     otp: (() throws -> String)? = nil) async throws -> TestResponse {
        let answer = try await get(AccountPaths.page(clientId))
        return try await signInIfAsked(answer, username: username, password: password, otp: otp)
    }

    /// When `answer` is the login form (or the second step), signs in and follows back.
    func signInIfAsked(_ answer: TestResponse, username: String = "alice", password: String = "alicepw",
                       otp: (() throws -> String)? = nil) async throws -> TestResponse {
        var answer = answer
        if answer.status == .ok, answer.text.contains(#"name="password""#), let form = LoginFormFields(html: answer.text) {
            answer = try await post(form.action, [("csrf_token", form.csrfToken), ("username", username), ("password", password)])
        }
        answer = try await follow(answer)
        if answer.status == .ok, answer.text.contains(#"id="otp-form""#), let otp {
            let step = MFAPage(html: answer.text)
            answer = try await follow(try await post(try must(step.action), [("csrf_token", try must(step.csrfToken)), ("otp", try otp())]))
        }
        return answer
    }

    /// Posts one of the account page's forms with the page's token (or `token`).
    func act(_ path: String, _ clientId: String, _ page: AccountPage, _ fields: [(String, String)] = [],
             token: String? = nil) async throws -> TestResponse {
        try await post(AccountPaths.action(path, clientId), [("csrf_token", try token ?? must(page.csrfToken))] + fields)
    }
}

enum AccountFixture {
    /// The registration fixture's broker (static users alice and bob at `kid_test`, app instances
    /// of software CSI), on `backend`.
    static func make(backend: StoreBackend = .sqlite) async throws -> TestBroker {
        try await RegistrationTests.make(backend: backend)
    }

    /// A second broker on the same configuration and storage.
    static func sibling(of broker: TestBroker) async throws -> TestBroker {
        let jwks = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [RegistrationTests.statementKey.publicKey.publicFields]]),
                          as: UTF8.self)
        return try await broker.sibling(environment: ["TEST_IAT": RegistrationTests.iat, "CSI_JWKS": jwks])
    }

    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    static let chrome = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

    /// A web app's browser sign-in at `clientId` (hosted form, PKCE) with the browser's cookies
    /// and User-Agent; returns the token response.
    static func webSignIn(_ browser: MFABrowser, clientId: String = TestBroker.appKey, extra: [(String, String)] = [],
                          username: String = "alice", password: String = "alicepw") async throws -> [String: Any] {
        let query = [("client_id", clientId), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("scope", "openid"),
                     ("state", "st"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")] + extra
        var answer = try await browser.get("/oauth/auth?" + formEncode(query))
        if let form = LoginFormFields(html: answer.text) {
            answer = try await browser.post(form.action, [("csrf_token", form.csrfToken), ("username", username), ("password", password)])
        }
        let code = try redirectCode(answer)
        let tokens = try await browser.client.postForm("/oauth/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect), ("client_id", clientId),
            ("code_verifier", Flows.verifier)])
        #expect(tokens.status == .ok, "\(tokens.text)")
        return tokens.json
    }

    /// An app's sign-in through the automated grant (no browser): tokens at `clientId`.
    static func appSignIn(_ client: any TestClientProtocol, clientId: String, username: String = "alice",
                          password: String = "alicepw") async throws -> [String: Any] {
        let location = try await Flows.automatedLogin(client, clientId: clientId, username: username, password: password)
        let response = try await Flows.exchange(client, code: try must(queryItems(location)["code"]), clientId: clientId)
        #expect(response.status == .ok, "\(response.text)")
        return response.json
    }

    /// Whether an access token still validates, and what a refresh of `refresh` answers.
    static func tokenState(_ client: any TestClientProtocol, _ tokens: [String: Any], clientId: String = TestBroker.appKey,
                           basic: HTTPFields? = nil) async throws -> (validate: Int, introspectActive: Bool, refresh: String) {
        let access = try must(tokens["access_token"] as? String)
        let validate = try await Flows.validate(client, access)
        let introspection = try await Flows.introspect(client, access)
        var refreshAnswer = "none"
        if let refresh = tokens["refresh_token"] as? String {
            let answer = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh),
                                                                    ("client_id", clientId)],
                                                   headers: basic ?? basicAuth(TestBroker.appKey, TestBroker.appSecret))
            refreshAnswer = answer.status == .ok ? "ok" : (answer.json["error"] as? String ?? "\(answer.status)")
        }
        return (Int(validate.status.code), introspection["active"] as? Bool ?? false, refreshAnswer)
    }
}
