import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Passkeys through HTTP with a software authenticator (docs/mfa.md): registration at enrolment,
/// sign-in, and each refusal the rules list.
@Suite("MFA: passkeys")
struct MFAPasskeyTests {
    static func options(_ page: MFAPage) throws -> [String: Any] {
        try must(try JSONSerialization.jsonObject(with: Data(try must(page.passkeyOptions).utf8)) as? [String: Any])
    }

    static func post(_ browser: MFABrowser, _ page: MFAPage, credential: [String: Any], challenge: String) async throws -> TestResponse {
        try await browser.postJSON(try must(page.passkeyAction),
                                   ["csrf_token": try must(page.csrfToken), "challenge": challenge, "credential": credential])
    }

    @Test("enrol a passkey, sign in with it (amr hwk); replayed, cloned, foreign-origin and garbage answers are refused in words")
    func passkeys() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            var authenticator = SoftwareAuthenticator()
            let browser = MFABrowser(client)
            let stepURL = try must(try await browser.signIn().location)
            let enrolPage = MFAPage(html: try await browser.get(stepURL).text)
            #expect(enrolPage.passkeyButton == "Create a passkey")
            let creation = try Self.options(enrolPage)
            #expect((creation["rp"] as? [String: Any])?["id"] as? String == "localhost")
            #expect(creation["attestation"] as? String == "none")
            #expect((creation["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int } == [-7, -257])
            let registered = try await Self.post(browser, enrolPage, credential: try authenticator.register(creation),
                                                 challenge: creation["challenge"] as! String)
            #expect(registered.status == .ok)
            #expect(registered.json["redirect"] as? String == stepURL)
            let codes = MFAPage(html: try await browser.get(stepURL).text)
            #expect(codes.recoveryCodes.count == 10)
            let done = try await browser.post(try must(codes.continueAction), [("csrf_token", try must(codes.csrfToken))])
            let tokens = try await MFAFixture.tokens(client, code: try must(queryItems(try must(done.location))["code"]))
            #expect(MFAFixture.claims(try must(tokens.json["id_token"] as? String))["amr"] as? [String] == ["pwd", "hwk", "mfa"])

            // Sign in with it.
            let second = MFABrowser(client)
            let verifyURL = try must(try await second.signIn().location)
            let page = MFAPage(html: try await second.get(verifyURL).text)
            #expect(page.passkeyButton == "Sign in with a passkey")
            #expect(page.html.contains(#"name="otp""#), "recovery codes still work without the passkey")
            let request = try Self.options(page)
            #expect((request["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String == authenticator.credentialIdText)
            authenticator.counter = 1
            let credential = try authenticator.assert(request)
            let signedIn = try await Self.post(second, page, credential: credential, challenge: request["challenge"] as! String)
            #expect(signedIn.status == .ok)
            let location = try must(signedIn.json["redirect"] as? String)
            #expect(signedIn.cookies["idc_sso"] != nil)
            let passkeyTokens = try await MFAFixture.tokens(client, code: try must(queryItems(location)["code"]))
            #expect(MFAFixture.claims(try must(passkeyTokens.json["access_token"] as? String))["amr"] as? [String] == ["pwd", "hwk", "mfa"])

            // Each refusal, on a fresh sign-in with a fresh challenge.
            func attempt(_ change: (inout SoftwareAuthenticator) -> Void) async throws -> TestResponse {
                let browser = MFABrowser(client)
                let page = MFAPage(html: try await browser.get(try must(try await browser.signIn().location)).text)
                let options = try Self.options(page)
                var copy = authenticator
                change(&copy)
                return try await Self.post(browser, page, credential: try copy.assert(options), challenge: options["challenge"] as! String)
            }
            let cloned = try await attempt { _ in }  // counter 1 again: it did not grow
            #expect(cloned.status == .badRequest)
            #expect((cloned.json["error"] as? String)?.contains("counter") == true)
            let foreign = try await attempt { $0.counter = 5; $0.origin = "http://evil.example" }
            #expect((foreign.json["error"] as? String)?.contains("evil.example") == true)
            let otherSite = try await attempt { $0.counter = 5; $0.rpId = "example.org" }
            #expect((otherSite.json["error"] as? String)?.contains("different site") == true)

            // The same answer twice: its challenge is spent.
            let replayed = try await Self.post(second, page, credential: credential, challenge: request["challenge"] as! String)
            #expect(replayed.status.code == 400)

            let hostile = MFABrowser(client)
            let hostilePage = MFAPage(html: try await hostile.get(try must(try await hostile.signIn().location)).text)
            for body in [["csrf_token": try must(hostilePage.csrfToken), "challenge": "x", "credential": ["id": 1]],
                         ["csrf_token": "wrong", "challenge": "x", "credential": [:]]] as [[String: Any]] {
                let answer = try await hostile.postJSON(try must(hostilePage.passkeyAction), body)
                #expect(answer.status == .badRequest)
                #expect(answer.json["error"] != nil)
            }
        }
    }
}
