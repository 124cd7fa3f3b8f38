import Foundation
import HummingbirdTesting
import Testing

/// docs/security.md, rule 6: a correct password clears the username's failed attempts, however
/// the sign-in goes on — completed (the reset rides in the completing write), held for a second
/// factor, or refused for a missing one-time code (settled in a write of its own). Five attempts
/// per username are allowed in the window: four wrong ones and the right one, twice over, pass
/// only if the first right one cleared the count.
@Suite("Security: a correct password resets the login throttle")
struct ThrottleResetSignInTests {
    /// One sign-in through the temp login URI (API mode): where it redirects to.
    static func tempLogin(_ client: any TestClientProtocol, clientId: String, secret: String, username: String,
                          password: String, otp: String? = nil) async throws -> [String: String] {
        let start = try await client.postForm("/oauth/auth", [("client_id", clientId), ("redirect_uri", TestBroker.redirect),
                                                             ("response_type", "code")], headers: basicAuth(clientId, secret))
        let uri = try must(start.json["temp_login_uri"] as? String)
        var fields = [("username", username), ("password", password)]
        if let otp { fields.append(("otp", otp)) }
        let answer = try await client.postForm(pathOf(uri), fields)
        #expect(answer.status == .found)
        return queryItems(try must(answer.location))
    }

    @Test("temp login URI: the completing write clears the username's count", arguments: StoreBackend.allCases)
    func completion(_ backend: StoreBackend) async throws {
        let broker = try await TestBroker.make(backend: backend)
        try await broker.withClient { client in
            func attempt(_ password: String) async throws -> [String: String] {
                try await Self.tempLogin(client, clientId: TestBroker.appKey, secret: TestBroker.appSecret, username: "bob", password: password)
            }
            for round in 1...2 {
                for _ in 1...4 { #expect(try await attempt("wrong")["error"] == "access_denied") }
                let signedIn = try await attempt("bobpw")
                #expect(signedIn["code"] != nil, "round \(round): \(signedIn)")
            }
            // Without the right password in between, the sixth attempt is held back.
            for _ in 1...5 { _ = try await attempt("wrong") }
            #expect(try await attempt("bobpw")["error_description"]?.contains("Too many failed sign-ins") == true)
        }
    }

    @Test("API mode with a second factor: the password's reset is settled before the one-time code is asked for",
          arguments: StoreBackend.allCases)
    func secondFactorRefusal(_ backend: StoreBackend) async throws {
        let broker = try await MFAFixture.make(backend: backend)
        try await MFAFixture.enrolTOTP(broker, service: "required", user: "alice", secret: Array("abcdefghijabcdefghij".utf8))
        try await broker.withClient { client in
            func attempt(_ password: String) async throws -> [String: String] {
                try await Self.tempLogin(client, clientId: MFAFixture.appKey, secret: MFAFixture.secret, username: "alice", password: password)
            }
            for round in 1...2 {
                for _ in 1...4 { #expect(try await attempt("wrong")["error"] == "access_denied") }
                // The right password without the code: refused for the code, not for the password.
                let refused = try await attempt("alicepw")
                #expect(refused["error"] == "mfa_required", "round \(round): \(refused)")
            }
        }
    }

    @Test("login form with a second factor: the password's reset is settled when the sign-in is held for the second step")
    func secondStepHold() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let browser = MFABrowser(client)
            for round in 1...2 {
                // A refusal (wrong or throttled) sends the browser back to the form with the error.
                for _ in 1...4 { #expect(try await browser.signIn(password: "wrong").status == .found) }
                // The mode is required and alice has no factor yet: on to the enrolment step.
                let held = try await browser.signIn()
                #expect(held.status == .seeOther, "round \(round): \(held.location ?? "")")
            }
        }
    }
}
