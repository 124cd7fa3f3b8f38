import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// AuthLink challenges (docs/mfa.md): the login page shows the question with one input `otp`,
/// answers go back to the AuthLink (at most three rounds); API mode sends `otp` in the first
/// request and hears `mfa_required` with the question.
@Suite("MFA: AuthLink challenges")
struct MFAChallengeTests {
    static func start(_ browser: MFABrowser, username: String = "challenge") async throws -> TestResponse {
        let query = [("client_id", AuthLinkFixture.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                     ("scope", "openid"), ("state", "st"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
        let page = try await browser.get("/oauth/auth?" + formEncode(query))
        let form = try must(LoginFormFields(html: page.text))
        return try await browser.post(form.action, [("csrf_token", form.csrfToken), ("username", username), ("password", "pw")])
    }

    @Test("browser: the question and one otp input; a wrong answer shows it again in words; rounds up to three; then a code")
    func browser() async throws {
        let log = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: log)) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let browser = MFABrowser(client)
                let login = try await Self.start(browser)
                #expect(login.status == .seeOther)
                let stepURL = try must(login.location)
                let page = MFAPage(html: try await browser.get(stepURL).text)
                #expect(page.html.contains("Enter the code we sent by SMS."))
                #expect(page.html.contains(#"name="otp""#) && page.html.contains(#"autocomplete="one-time-code""#))
                let action = try must(page.action), csrf = try must(page.csrfToken)
                let wrong = try await browser.post(action, [("csrf_token", csrf), ("otp", "111111")])
                #expect(wrong.status == .badRequest)
                #expect(MFAPage(html: wrong.text).error == "Wrong code.")
                let again = try await browser.post(action, [("csrf_token", csrf), ("otp", "again")])
                #expect(again.status == .ok)
                #expect(again.text.contains("One more code, please."))
                // The AuthLink got the broker's exact shape.
                let call = try must(log.last)
                let body = try must(try JSONSerialization.jsonObject(with: call.body) as? [String: String])
                #expect(body == ["username": "challenge", "challenge_state": "round-1", "response": "again"])
                let done = try await browser.post(action, [("csrf_token", csrf), ("otp", "424242")])
                #expect(done.status == .found)
                let location = try must(done.location)
                #expect(queryItems(location)["code"] != nil)

                // Three rounds at most.
                let other = MFABrowser(client)
                let otherURL = try must(try await Self.start(other).location)
                let otherPage = MFAPage(html: try await other.get(otherURL).text)
                var last: TestResponse?
                for _ in 0..<3 {
                    last = try await other.post(try must(otherPage.action), [("csrf_token", try must(otherPage.csrfToken)), ("otp", "again")])
                }
                #expect(queryItems(try must(last?.location))["error"] == "access_denied")
            }
        }
    }

    @Test("API mode: otp in the first request; a challenge becomes mfa_required with its message; a malformed challenge is 502")
    func apiMode() async throws {
        let log = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: log)) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let asked = try await AuthLinkFixture.signIn(client, "challenge")
                #expect(asked.status == .badRequest)
                #expect(asked.json["error"] as? String == "mfa_required")
                #expect(asked.json["error_description"] as? String == "Enter the code we sent by SMS.")
                let answered = try await client.postForm("/oauth/token", [
                    ("grant_type", "password"), ("client_id", AuthLinkFixture.appKey), ("username", "challenge"), ("password", "pw"),
                    ("otp", "424242")], headers: basicAuth(AuthLinkFixture.appKey, AuthLinkFixture.secret))
                #expect(answered.status == .ok)
                let body = try must(try JSONSerialization.jsonObject(with: try must(log.last).body) as? [String: String])
                #expect(body["otp"] == "424242")
                let malformed = try await AuthLinkFixture.signIn(client, "bad-challenge")
                #expect(malformed.status.code == 502)
            }
        }
    }
}
