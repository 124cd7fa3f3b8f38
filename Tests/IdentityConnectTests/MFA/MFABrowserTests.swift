import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import Testing

/// The second step in a browser (docs/mfa.md): enrolment of an authenticator app with its QR code
/// and key, recovery codes shown once, codes with their replay and throttle rules, `amr`.
@Suite("MFA: second step in the browser")
struct MFABrowserTests {
    /// Enrols alice's authenticator app at `required`; returns the page (with the key) and codes.
    static func enrol(_ browser: MFABrowser, _ broker: TestBroker) async throws -> (key: MFAPage, codes: [String], location: String) {
        let login = try await browser.signIn()
        #expect(login.status == .seeOther)
        let stepURL = try must(login.location)
        #expect(stepURL.hasPrefix("http://localhost:8080/oauth/mfa/"))
        let page = MFAPage(html: try await browser.get(stepURL).text)
        #expect(page.html.contains(#"name="otp""#) && page.html.contains(#"autocomplete="one-time-code""#))
        #expect(page.html.contains(#"<img id="totp-qr" src="data:image/png;base64,"#))
        #expect(page.passkeyButton?.contains("passkey") == true)
        // A way forward (docs/mfa.md): who is signing in, the key as a link that opens the
        // authenticator app on this phone, and one primary button (the passkey one is the other way).
        #expect(page.html.contains(#"id="signed-in-as">Signing in as <strong>alice</strong>"#))
        #expect(page.html.contains(#"id="totp-open" href="otpauth:"#))
        #expect(page.html.contains(#"<button type="button" id="passkey" class="secondary""#))
        let action = try must(page.action), csrf = try must(page.csrfToken)

        let wrong = try await browser.post(action, [("csrf_token", csrf), ("otp", "000000")])
        #expect(wrong.status == .badRequest)
        #expect(MFAPage(html: wrong.text).error?.contains("does not match") == true)
        #expect(MFAPage(html: wrong.text).totpSecret == page.totpSecret, "the same key stays on offer")

        let confirmed = try await browser.post(action, [("csrf_token", csrf), ("otp", try page.code(at: broker.clock.now()))])
        #expect(confirmed.status == .seeOther)
        let codesPage = MFAPage(html: try await browser.get(stepURL).text)
        let codes = codesPage.recoveryCodes
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(codes.allSatisfy { $0.count == 19 })
        // The codes as a file to download, and a copy button (shown by the page's script).
        let download = try must(codesPage.html.firstMatch(of: /id="recovery-download" href="data:text\/plain;charset=utf-8,([^"]+)" download="recovery-codes.txt"/)?.1)
        #expect(String(download).removingPercentEncoding == codes.joined(separator: "\n") + "\n")
        #expect(codesPage.html.contains(#"id="recovery-copy""#))
        // Shown once: a reload does not show them again.
        #expect(MFAPage(html: try await browser.get(stepURL).text).recoveryCodes.isEmpty)
        let done = try await browser.post(try must(codesPage.continueAction), [("csrf_token", csrf)])
        #expect(done.status == .found)
        #expect(done.cookies["idc_sso"] != nil, "finishing the second step issues a fresh SSO cookie")
        return (page, codes, try must(done.location))
    }

    @Test("mode required: enrol with a code computed from the key, recovery codes shown once, amr pwd+otp+mfa in both tokens")
    func enrolment() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let (_, _, location) = try await Self.enrol(MFABrowser(client), broker)
            #expect(queryItems(location)["state"] == "st")
            let tokens = try await MFAFixture.tokens(client, code: try must(queryItems(location)["code"]))
            #expect(tokens.status == .ok)
            for name in ["id_token", "access_token"] {
                let amr = MFAFixture.claims(try must(tokens.json[name] as? String))["amr"] as? [String]
                #expect(amr == ["pwd", "otp", "mfa"], "\(name)")
            }
        }
    }

    @Test("Not you?: the second step ends and the same authorization starts over on an empty login form in the same browser")
    func notYou() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let browser = MFABrowser(client)
            let stepURL = try must(try await browser.signIn().location)
            let page = MFAPage(html: try await browser.get(stepURL).text)
            let restart = try must(page.html.firstMatch(of: /<form method="post" action="([^"]+)" class="restart">/)?.1)
            #expect(page.html.contains(#"id="not-you">Not you? Sign in as someone else</button>"#))
            #expect(try await browser.post(String(restart), [("csrf_token", "forged")]).status == .badRequest, "the form's token is checked")
            let started = try await browser.post(String(restart), [("csrf_token", try must(page.csrfToken))])
            #expect(started.status == .seeOther)
            let login = try must(started.location)
            #expect(login.hasPrefix("http://localhost:8080/oauth/authenticate/"))
            let form = try await browser.get(login)
            #expect(form.status == .ok && form.text.contains(##"id="username" name="username" value="""##), "an empty login form")
            #expect(try await browser.get(stepURL).status == .badRequest, "the second step is gone")
            // The same authorization goes on: bob signs in and is asked for his own second factor.
            let fields = try must(LoginFormFields(html: form.text))
            let bob = try await browser.post(fields.action, [("csrf_token", fields.csrfToken), ("username", "bob"), ("password", "bobpw")])
            #expect(bob.status == .seeOther && bob.location?.contains("/oauth/mfa/") == true, "\(bob.status)")
            #expect(try await browser.get(try must(bob.location)).text.contains("Signing in as <strong>bob</strong>"))
        }
    }

    @Test("a second sign-in asks for the code: wrong code shows the form with the reason, replay refused, recovery code once")
    func verify() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let (key, codes, _) = try await Self.enrol(MFABrowser(client), broker)
            let browser = MFABrowser(client)
            let login = try await browser.signIn()
            let stepURL = try must(login.location)
            let page = MFAPage(html: try await browser.get(stepURL).text)
            #expect(page.totpSecret == nil, "nothing to set up any more")
            #expect(page.html.contains(#"autocomplete="one-time-code""#))
            let action = try must(page.action), csrf = try must(page.csrfToken)

            let wrong = try await browser.post(action, [("csrf_token", csrf), ("otp", "123")])
            #expect(wrong.status == .badRequest)
            #expect(MFAPage(html: wrong.text).error?.contains("6-digit code") == true)
            // The step accepted at enrolment is spent: the same code is a replay.
            let replay = try await browser.post(action, [("csrf_token", csrf), ("otp", try key.code(at: broker.clock.now()))])
            #expect(MFAPage(html: replay.text).error?.contains("used already") == true)
            broker.clock.advance(30)
            let accepted = try await browser.post(action, [("csrf_token", csrf), ("otp", try key.code(at: broker.clock.now()))])
            #expect(accepted.status == .found)
            #expect(queryItems(try must(accepted.location))["code"] != nil)

            // Recovery codes: accepted in any spelling, each once.
            let other = MFABrowser(client)
            let second = MFAPage(html: try await other.get(try must(try await other.signIn().location)).text)
            let use = try await other.post(try must(second.action), [("csrf_token", try must(second.csrfToken)),
                                                                        ("otp", codes[0].uppercased().replacingOccurrences(of: "-", with: " "))])
            #expect(use.status == .found)
            let third = MFABrowser(client)
            let again = MFAPage(html: try await third.get(try must(try await third.signIn().location)).text)
            let reuse = try await third.post(try must(again.action), [("csrf_token", try must(again.csrfToken)), ("otp", codes[0])])
            #expect(reuse.status == .badRequest)
            #expect(MFAPage(html: reuse.text).error?.contains("used already") == true)
        }
    }

    @Test("codes count in the login throttle; bad input never answers 5xx; another browser cannot use the step")
    func throttleAndBadInput() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let (key, _, _) = try await Self.enrol(MFABrowser(client), broker)
            let browser = MFABrowser(client)
            let stepURL = try must(try await browser.signIn().location)
            let page = MFAPage(html: try await browser.get(stepURL).text)
            let action = try must(page.action), csrf = try must(page.csrfToken)
            // Another browser (no binding cookie) gets nothing; a missing token is refused.
            #expect(try await MFABrowser(client).get(stepURL).status == .badRequest)
            #expect(try await browser.post(action, [("otp", "123456")]).status == .badRequest)
            for junk in [String(repeating: "9", count: 5000), "１２３４５６", "'; DROP TABLE x; --", "\u{0}\u{1}"] {
                let answer = try await browser.post(action, [("csrf_token", csrf), ("otp", junk)])
                #expect(answer.status.code < 500)
            }
            // Wrong codes count per user: five in the window, then the user is held back.
            broker.clock.advance(30)
            let other = MFABrowser(client)
            let next = MFAPage(html: try await other.get(try must(try await other.signIn().location)).text)
            let otherAction = try must(next.action), otherToken = try must(next.csrfToken)
            for _ in 0..<2 { _ = try await other.post(otherAction, [("csrf_token", otherToken), ("otp", "000000")]) }
            let held = try await other.post(otherAction, [("csrf_token", otherToken), ("otp", try key.code(at: broker.clock.now()))])
            #expect(held.status == .tooManyRequests)
            #expect(MFAPage(html: held.text).error?.contains("Too many wrong codes") == true)
        }
    }

    @Test("mode optional: no factor, no second step (amr pwd); SSO reuse of a session without mfa is asked once the user has a factor")
    func optionalAndSSO() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let browser = MFABrowser(client)
            let signedIn = try await browser.signIn(service: "optional")
            #expect(signedIn.status == .found)
            let tokens = try await MFAFixture.tokens(client, code: try must(queryItems(try must(signedIn.location))["code"]), service: "optional")
            #expect(MFAFixture.claims(try must(tokens.json["id_token"] as? String))["amr"] as? [String] == ["pwd"])

            // alice enrols an authenticator app at `optional` (as the account page will).
            let secret = Array("12345678901234567890".utf8)
            try await MFAFixture.enrolTOTP(broker, service: "optional", user: "alice", secret: secret)
            let query = [("client_id", "\(MFAFixture.appKey).optional"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                         ("scope", "openid"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
            let sso = try await browser.get("/oauth/auth?" + formEncode(query))
            #expect(sso.status == .found)
            let stepURL = try must(sso.location)
            #expect(stepURL.contains("/oauth/mfa/"), "the SSO session lacks mfa: asked first")
            let none = try await browser.get("/oauth/auth?" + formEncode(query + [("prompt", "none")]))
            #expect(queryItems(try must(none.location))["error"] == "login_required")
            let page = MFAPage(html: try await browser.get(stepURL).text)
            let code = OneTimePasswordHelper.code(secret, at: broker.clock.now())
            let done = try await browser.post(try must(page.action), [("csrf_token", try must(page.csrfToken)), ("otp", code)])
            #expect(done.status == .found)
            let raised = try await MFAFixture.tokens(client, code: try must(queryItems(try must(done.location))["code"]), service: "optional")
            #expect(MFAFixture.claims(try must(raised.json["id_token"] as? String))["amr"] as? [String] == ["pwd", "otp", "mfa"])
            // The session now remembers mfa: the next SSO sign-in goes straight through.
            let straight = try await browser.get("/oauth/auth?" + formEncode(query))
            #expect(queryItems(try must(straight.location))["code"] != nil)
        }
    }
}
