import Foundation
import HTTPTypes
import HummingbirdTesting
import IdentityCore
@testable import OAuthEngine
import OneTimePassword
import Testing

/// RFC 6238 §5.2 as a person meets it (docs/mfa.md, "Rules"; issue 56): a phone a few seconds
/// ahead or behind shows the code of the adjacent time step, which is accepted; each step is
/// accepted at most once per user, and never one earlier than the last accepted (replay), on every
/// instance; a recovery code works once. Through the password grant's `otp`, the temp login URI
/// and the second-step page, with a manual clock for the window's edges.
@Suite("MFA: the time-step window, replay and recovery codes")
struct MFATimeStepTests {
    static let secret = Array("0123456789abcdefghij".utf8)

    /// The code of the step `offset` steps from the clock's.
    static func code(_ broker: TestBroker, _ offset: Int64) -> String {
        OneTimePasswordHelper.code(secret, at: broker.clock.now(), offset: offset)
    }

    /// A broker whose clock stands 10 s into a time step, with alice's authenticator app enrolled
    /// (no step accepted yet) and `recoveryCodes` as her recovery codes.
    static func broker(_ backend: StoreBackend, recoveryCodes: [String] = []) async throws -> TestBroker {
        let broker = try await TestBroker.make(files: MFAFixture.files(), backend: backend, postgresPool: 2)
        let now = broker.clock.now().timeIntervalSince1970
        broker.clock.set(Date(timeIntervalSince1970: (now / 30).rounded(.down) * 30 + 10))
        try await MFAFixture.enrolTOTP(broker, service: "required", user: "alice", secret: secret)
        if !recoveryCodes.isEmpty {
            let subject = SubjectIdentifier.make(namespace: "env:\(MFAFixture.appKey)/required", userId: "alice")
            try await broker.engine.storage.mfa.replaceRecoveryCodes(subject: subject, hashes: RecoveryCodes.hashes(recoveryCodes, subject: subject),
                                                            at: broker.clock.now())
        }
        return broker
    }

    @Test("TOTP.matchingStep: steps −1, 0 and +1 match as themselves, ±2 do not, at both ends of a step")
    func windowEdges() {
        let totp = TOTP(secret: Self.secret)
        for seconds in [0.0, 29.999] {
            let date = Date(timeIntervalSince1970: 1_800_000_000 + seconds)
            let step = totp.step(at: date)
            for offset: Int64 in [-1, 0, 1] {
                #expect(totp.matchingStep(totp.code(step: step + offset), at: date) == step + offset, "offset \(offset) at +\(seconds) s")
            }
            for offset: Int64 in [-2, 2] {
                #expect(totp.matchingStep(totp.code(step: step + offset), at: date) == nil, "offset \(offset) at +\(seconds) s")
            }
        }
    }

    @Test("password grant: the next step's code is accepted once; the current one then refused; ±2 refused; the window moves with the clock",
          arguments: StoreBackend.allCases)
    func passwordGrant(_ backend: StoreBackend) async throws {
        let broker = try await Self.broker(backend)
        try await broker.withClient { client in
            func grant(_ otp: String) async throws -> TestResponse { try await MFAFixture.passwordGrant(client, otp: otp) }
            for offset: Int64 in [2, -2] {
                let refused = try await grant(Self.code(broker, offset))
                #expect(refused.json["error"] as? String == "access_denied")
                #expect((refused.json["error_description"] as? String)?.contains("not correct") == true, "offset \(offset): \(refused.text)")
            }
            // A phone a few seconds ahead: the next step's code.
            let ahead = Self.code(broker, 1)
            #expect(try await grant(ahead).status == .ok)
            let replay = try await grant(ahead)
            #expect(replay.json["error"] as? String == "access_denied")
            #expect((replay.json["error_description"] as? String)?.contains("used already") == true, "\(replay.text)")
            // An earlier step than the one accepted is a replay too.
            #expect((try await grant(Self.code(broker, 0)).json["error_description"] as? String)?.contains("used already") == true)
            // Two steps later the accepted step is the one behind; the step after the clock's is new.
            broker.clock.advance(60)
            #expect((try await grant(Self.code(broker, -1)).json["error_description"] as? String)?.contains("used already") == true)
            #expect(try await grant(Self.code(broker, 1)).status == .ok)
            try await broker.engine.storage.maintenance.close()
        }
    }

    @Test("temp login URI: the previous step's code (a phone behind) signs in once; its replay is refused on the other instance too",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func tempLoginTwoInstances() async throws {
        let first = try await Self.broker(.postgres)
        let second = try await first.sibling()
        try await first.withClient { one in
            try await second.withClient { two in
                func tempLogin(_ client: any TestClientProtocol, _ otp: String) async throws -> [String: String] {
                    try await ThrottleResetSignInTests.tempLogin(client, clientId: MFAFixture.appKey, secret: MFAFixture.secret,
                                                                 username: "alice", password: "alicepw", otp: otp)
                }
                let behind = Self.code(first, -1)
                #expect(try await tempLogin(one, behind)["code"] != nil)
                let replay = try await tempLogin(two, behind)
                #expect(replay["error"] == "access_denied" && replay["error_description"]?.contains("used already") == true, "\(replay)")
                #expect(try await tempLogin(two, Self.code(first, 0))["code"] != nil)
                #expect(try await tempLogin(one, Self.code(first, 0))["error"] == "access_denied")
                for broker in [first, second] { try await broker.engine.storage.maintenance.close() }
            }
        }
    }

    @Test("a recovery code works once: through the password grant, then refused at the temp login URI; another works there once",
          arguments: StoreBackend.allCases)
    func recoveryCodes(_ backend: StoreBackend) async throws {
        let codes = RecoveryCodes.generate()
        let broker = try await Self.broker(backend, recoveryCodes: codes)
        try await broker.withClient { client in
            func tempLogin(_ otp: String) async throws -> [String: String] {
                try await ThrottleResetSignInTests.tempLogin(client, clientId: MFAFixture.appKey, secret: MFAFixture.secret,
                                                             username: "alice", password: "alicepw", otp: otp)
            }
            let granted = try await MFAFixture.passwordGrant(client, otp: codes[0])
            #expect(granted.status == .ok, "\(granted.text)")
            #expect(MFAFixture.claims(try must(granted.json["access_token"] as? String))["amr"] as? [String] == ["pwd", "otp", "mfa"])
            #expect(try await MFAFixture.passwordGrant(client, otp: codes[0]).json["error"] as? String == "access_denied")
            let reused = try await tempLogin(codes[0])
            #expect(reused["error"] == "access_denied" && reused["error_description"]?.contains("works once") == true, "\(reused)")
            #expect(try await tempLogin(codes[1].uppercased())["code"] != nil)
            #expect(try await tempLogin(codes[1])["error"] == "access_denied")
            try await broker.engine.storage.maintenance.close()
        }
    }

    @Test("the second-step page: a wrong code shows the error and the code field again; the next step's code signs in; its replay is refused",
          arguments: StoreBackend.allCases)
    func page(_ backend: StoreBackend) async throws {
        try await Self.onSecondStepPage(backend) { broker, client, browser, action, csrf in
            let wrong = try await browser.post(action, [("csrf_token", csrf), ("otp", Self.code(broker, 2))])
            Self.expectPageAgain(wrong, action: action, status: .badRequest, saying: "not correct")
            try await Self.expectSignedIn(browser, action: action, csrf: csrf, code: Self.code(broker, 1))

            let other = MFABrowser(client)
            let next = MFAPage(html: try await other.get(try must(try await other.signIn().location)).text)
            let replay = try await other.post(try must(next.action), [("csrf_token", try must(next.csrfToken)), ("otp", Self.code(broker, 1))])
            #expect(MFAPage(html: replay.text).error?.contains("used already") == true)
        }
    }

    @Test("six wrong codes on one page: the page and its code field every time, the throttle's words from the sixth; then the right code",
          arguments: StoreBackend.allCases)
    func wrongCodesKeepThePage(_ backend: StoreBackend) async throws {
        try await Self.onSecondStepPage(backend) { broker, _, browser, action, csrf in
            for attempt in 1...6 {
                let wrong = try await browser.post(action, [("csrf_token", csrf), ("otp", Self.code(broker, 3))])
                Self.expectPageAgain(wrong, action: action, status: attempt <= 5 ? .badRequest : .tooManyRequests,
                                     saying: attempt <= 5 ? "not correct" : "Too many wrong codes", "attempt \(attempt)")
            }
            broker.clock.advance(30)
            try await Self.expectSignedIn(browser, action: action, csrf: csrf, code: Self.code(broker, 0))
        }
    }

    /// Alice signed in with her password at a broker on `backend`, on the second-step page:
    /// `body` gets the broker, the client, the browser, the form's action and CSRF token.
    static func onSecondStepPage(_ backend: StoreBackend,
                                 _ body: @Sendable (TestBroker, any TestClientProtocol, MFABrowser, String, String) async throws -> Void)
        async throws {
        let broker = try await Self.broker(backend)
        try await broker.withClient { client in
            let browser = MFABrowser(client)
            let (action, csrf) = try await browser.secondStepForm()
            try await body(broker, client, browser, action, csrf)
            try await broker.engine.storage.maintenance.close()
        }
    }

    /// The second-step page again after a wrong code: its status, the reason, and the code field.
    static func expectPageAgain(_ answer: TestResponse, action: String, status: HTTPResponse.Status, saying reason: String,
                                _ note: String = "", sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let again = MFAPage(html: answer.text)
        #expect(answer.status == status, "\(note)", sourceLocation: sourceLocation)
        #expect(again.error?.contains(reason) == true, "\(note): \(again.error ?? "no error")", sourceLocation: sourceLocation)
        #expect(again.action == action && again.html.contains(#"id="otp" name="otp""#), "\(note): the code field",
                sourceLocation: sourceLocation)
    }

    /// A right code on the page: back to the client with a code.
    static func expectSignedIn(_ browser: MFABrowser, action: String, csrf: String, code: String,
                               sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let accepted = try await browser.post(action, [("csrf_token", csrf), ("otp", code)])
        #expect(accepted.status == .found, sourceLocation: sourceLocation)
        #expect(queryItems(try must(accepted.location))["code"] != nil, sourceLocation: sourceLocation)
    }
}
