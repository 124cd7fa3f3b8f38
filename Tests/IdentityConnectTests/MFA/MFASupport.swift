import EngineTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import OAuthEngine
import OneTimePassword
import StoreContracts
import Testing

/// A broker whose `kid_mfa` environment asks for second factors (docs/mfa.md), at
/// `http://localhost:8080` so that passkeys have a domain RP ID.
enum MFAFixture {
    static let appKey = "kid_mfa"
    static let secret = "mfa-app-secret-1234"

    static func files(extraServices: String = "", auditFile: String? = nil) -> [String: String] {
        var files = TestBroker.defaultConfig()
        let users = """
                    users:
                      - { username: alice, passwordHash: "\(TestBroker.hashes["alice"]!)", email: alice@example.org, name: Alice }
                      - { username: bob, passwordHash: "\(TestBroker.hashes["bob"]!)" }
        """
        func service(_ id: String, _ mfa: String) -> String {
            """
                  - id: \(id)
                    name: MFA \(id)
                    redirectUri: [ "\(TestBroker.redirect)" ]
                    mfa: \(mfa)
                    provider:
                      type: static
                      options:
            \(users)
            """
        }
        files["server.yaml"] = "server:\n  issuer: http://localhost:8080\n" + (auditFile.map { "  audit:\n    file: \($0)\n" } ?? "")
        files["environments/mfa.yaml"] = """
        environments:
          - appKey: \(appKey)
            appSecret: \(secret)
            defaultAuthService: required
            authServices:
        \(service("required", "{ mode: required, issuerName: Acme }"))
        \(service("optional", "{ mode: optional }"))
        \(service("totponly", "{ mode: required, methods: [ totp ] }"))
        \(extraServices)
        """
        return files
    }

    static func make(backend: StoreBackend = .sqlite, extraServices: String = "", auditFile: String? = nil) async throws -> TestBroker {
        try await TestBroker.make(files: files(extraServices: extraServices, auditFile: auditFile), backend: backend)
    }

    /// Enrols `secret` as `user`'s authenticator app at `service` of this fixture, as enrolment does.
    static func enrolTOTP(_ broker: TestBroker, service: String, user: String, secret: [UInt8]) async throws {
        try await broker.engine.enrolTOTP(secret, userId: user, clientId: "\(appKey).\(service)")
    }

    static func tokens(_ client: any TestClientProtocol, code: String, service: String = "required") async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code), ("client_id", "\(appKey).\(service)"),
                                                   ("redirect_uri", TestBroker.redirect), ("code_verifier", Flows.verifier)],
                                  headers: basicAuth(appKey, secret))
    }

    static func passwordGrant(_ client: any TestClientProtocol, service: String = "required", username: String = "alice",
                              password: String = "alicepw", otp: String? = nil) async throws -> TestResponse {
        var fields = [("grant_type", "password"), ("client_id", "\(appKey).\(service)"), ("username", username), ("password", password)]
        if let otp { fields.append(("otp", otp)) }
        return try await client.postForm("/oauth/token", fields, headers: basicAuth(appKey, secret))
    }

    /// The payload claims of a JWT.
    static func claims(_ jwt: String) -> [String: Any] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}

/// One browser: its cookies, carried from answer to answer.
final class MFABrowser: @unchecked Sendable {
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]
    /// The User-Agent it sends (none by default).
    var userAgent: String?

    init(_ client: any TestClientProtocol, userAgent: String? = nil) {
        self.client = client
        self.userAgent = userAgent
    }

    /// The headers every request carries: the cookies, and the User-Agent when set.
    var cookieHeader: HTTPFields {
        var headers: HTTPFields = cookies.isEmpty ? [:] : [.cookie: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")]
        if let userAgent { headers[.userAgent] = userAgent }
        return headers
    }

    private func keep(_ response: TestResponse) -> TestResponse {
        for (name, value) in response.cookies { if value.isEmpty { cookies[name] = nil } else { cookies[name] = value } }
        return response
    }

    func get(_ url: String) async throws -> TestResponse { keep(try await client.get(pathOf(url), headers: cookieHeader)) }

    func post(_ url: String, _ fields: [(String, String)]) async throws -> TestResponse {
        keep(try await client.postForm(pathOf(url), fields, headers: cookieHeader))
    }

    func postJSON(_ url: String, _ object: [String: Any]) async throws -> TestResponse {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return keep(try await client.postRaw(pathOf(url), body: body, contentType: "application/json", headers: cookieHeader))
    }

    /// `/oauth/auth` and the login form; answers what the form post answered.
    func signIn(service: String = "required", username: String = "alice", password: String = "alicepw",
                extra: [(String, String)] = []) async throws -> TestResponse {
        let query = [("client_id", "\(MFAFixture.appKey).\(service)"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                     ("scope", "openid"), ("state", "st"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")] + extra
        let page = try await get("/oauth/auth?" + formEncode(query))
        guard let form = LoginFormFields(html: page.text) else { return page }
        return try await post(form.action, [("csrf_token", form.csrfToken), ("username", username), ("password", password)])
    }
}

/// What a test reads off the second-step page.
extension MFABrowser {
    /// Signs alice in and opens the second-step page it leads to: the form's action and CSRF token.
    func secondStepForm() async throws -> (action: String, csrf: String) {
        let stepURL = try must(try await signIn().location)
        let page = MFAPage(html: try await get(stepURL).text)
        return (try must(page.action), try must(page.csrfToken))
    }
}

struct MFAPage {
    let html: String

    static func unescape(_ text: String) -> String {
        var result = text
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&#x2F;", "/"), ("&#x3D;", "="), ("&lt;", "<"), ("&gt;", ">"),
                                    ("&#x60;", "`"), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }

    func capture(_ pattern: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators]),
              let match = regex.firstMatch(in: html, range: NSRange(html.startIndex..., in: html)),
              let range = Range(match.range(at: 1), in: html) else { return nil }
        return Self.unescape(String(html[range]))
    }

    var action: String? { capture(#"<form method="post" action="([^"]+)" id="otp-form""#) }
    var csrfToken: String? { capture(#"name="csrf_token" value="([^"]+)""#) }
    var totpSecret: String? { capture(#"<code id="totp-secret">([^<]+)</code>"#) }
    var error: String? { capture(#"id="error">([^<]+)<"#) }
    var continueAction: String? { capture(#"<form method="post" action="([^"]+)" id="continue-form""#) }
    var passkeyOptions: String? { capture(#"data-options="([^"]+)""#) }
    var passkeyAction: String? { capture(#"id="passkey" class="[^"]*" data-options="[^"]+" data-action="([^"]+)""#) }
    var passkeyButton: String? { capture(#"<button type="button" id="passkey"[^>]*>([^<]+)</button>"#) }
    var recoveryCodes: [String] {
        guard let list = capture(#"<ul class="accounts" id="recovery-codes">(.*?)</ul>"#) else { return [] }
        let regex = try! NSRegularExpression(pattern: "<code>([^<]+)</code>")
        return regex.matches(in: list, range: NSRange(list.startIndex..., in: list)).compactMap {
            Range($0.range(at: 1), in: list).map { String(list[$0]) }
        }
    }

    /// The authenticator app's current code for the key on the page.
    func code(at date: Date, offset: Int64 = 0) throws -> String {
        let key = try must(totpSecret).replacingOccurrences(of: " ", with: "")
        let totp = TOTP(secret: try must(Base32.decode(key)))
        return totp.code(step: totp.step(at: date) + offset)
    }
}

/// `#require` for optionals, usable inside other expressions (macros do not nest).
func must<T>(_ value: T?, _ comment: Comment? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> T {
    try #require(value, comment, sourceLocation: sourceLocation)
}
