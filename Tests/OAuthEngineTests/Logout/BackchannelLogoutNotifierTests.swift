import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import Logging
import OAuthEngine
import StoreContracts
import Synchronization
import Testing

/// `BackchannelLogoutNotifier` (OpenID Connect Back-Channel Logout 1.0; docs/protocol.md,
/// "Back-channel logout to relying parties"): when a session ends, each client that got tokens in
/// it and has a `backchannelLogoutUri` receives a logout token signed by the broker, naming the
/// session as the client's ID tokens did; a client that does not take it is tried again after
/// each retry delay, and every failure is audited.
@Suite("BackchannelLogoutNotifier")
struct BackchannelLogoutNotifierTests {
    static let relyingParty = URL(string: "https://rp.example.com/backchannel-logout")!

    /// Records what it was asked to deliver; refuses the first `failures[aud]` tokens of an audience.
    final class RecordingDelivery: LogoutTokenDelivering, Sendable {
        let state: Mutex<(tokens: [(token: String, uri: URL)], failures: [String: Int])>

        init(failures: [String: Int] = [:]) { state = Mutex(([], failures)) }

        func deliver(logoutToken: String, to uri: URL) async throws {
            let audience = CompactJWS.decode(logoutToken)?.claims?["aud"]?.stringValue ?? ""
            try state.withLock { state in
                if let left = state.failures[audience], left > 0 {
                    state.failures[audience] = left - 1
                    throw Refusal()
                }
                state.tokens.append((logoutToken, uri))
            }
        }

        var delivered: [(token: String, uri: URL)] { state.withLock { $0.tokens } }

        struct Refusal: Error, CustomStringConvertible { var description: String { "answered HTTP 400" } }
    }

    final class RecordingSink: AuditSink, Sendable {
        let events = Mutex<[AuditEvent]>([])
        func write(_ event: AuditEvent, at date: Date) { events.withLock { $0.append(event) } }
        var failures: [AuditEvent] { events.withLock { $0 }.filter { $0.name == .backchannelLogoutFailed } }
    }

    /// A fixture whose `users` auth service (the environment's default) has a back-channel URI.
    static func fixture(delivery: RecordingDelivery, sink: RecordingSink = RecordingSink(),
                        uri: URL? = BackchannelLogoutNotifierTests.relyingParty) async throws -> EngineFixture {
        var quiet = Logger(label: AuditTrail.label)
        quiet.logLevel = .critical
        var services = EngineFixture.defaultServices
        services[0].backchannelLogoutURI = uri
        return try await EngineFixture(environments: [EngineFixture.environment(services: services)], logoutDelivery: delivery,
                                       audit: AuditTrail(logger: quiet, sinks: [sink]))
    }

    /// Signs alice in with the password grant; returns the ID token's claims.
    static func signIn(_ fixture: EngineFixture) async throws -> [String: JSONValue] {
        let idToken = try #require(try await fixture.passwordGrant().id_token)
        return try #require(CompactJWS.decode(idToken)?.claims)
    }

    @Test("an ended session sends its client one logout token: signed, typ logout+jwt, sub and sid of its ID tokens, the event, no nonce")
    func deliversOnce() async throws {
        let delivery = RecordingDelivery()
        let fixture = try await Self.fixture(delivery: delivery)
        let notifier = try #require(fixture.engine.logoutNotifier)
        let idToken = try await Self.signIn(fixture)
        let sid = try #require(idToken["sid"]?.stringValue)
        #expect(try await notifier.deliverDue() == .init(), "nothing ended yet")

        try await fixture.storage.sessions.revokeSession(id: sid, at: fixture.clock.now())
        #expect(try await notifier.deliverDue() == .init(notices: 1, delivered: 1, failed: 0))
        let sent = try #require(delivery.delivered.first)
        #expect(sent.uri == Self.relyingParty)
        let policy = JWTPolicy(use: "logout token", algorithms: [.rs256], types: ["logout+jwt"], issuer: EngineFixture.issuer,
                               audience: EngineFixture.appKey, requiredClaims: ["exp", "iat", "jti", "sub", "sid", "events"])
        let verified = try JWTVerifier.verify(sent.token, keys: fixture.engine.state.keys, policy: policy, now: fixture.clock.now())
        #expect(verified.header["typ"]?.stringValue == "logout+jwt")
        #expect(verified.claims["sid"] == idToken["sid"] && verified.claims["sub"] == idToken["sub"])
        #expect(verified.claims["events"] == .object([BackchannelLogoutNotifier.event: .object([:])]))
        #expect(verified.claims["nonce"] == nil)
        #expect(try await notifier.deliverDue() == .init(), "told once")
        #expect(delivery.delivered.count == 1)
    }

    @Test("a client that does not take it is tried after each delay, those told are not told again, each failure audited")
    func retries() async throws {
        let delivery = RecordingDelivery(failures: ["kid_test.users": 2])
        let sink = RecordingSink()
        let fixture = try await Self.fixture(delivery: delivery, sink: sink)
        let notifier = try #require(fixture.engine.logoutNotifier)
        let sid = try #require(try await Self.signIn(fixture)["sid"]?.stringValue)
        // A second client of the same auth service got tokens in that sign-in.
        try await fixture.storage.families.insertFamily(TokenFamily(id: "second", sessionId: sid, clientId: "kid_test.users", scope: "openid",
                                                                    nonce: nil, createdAt: fixture.clock.now(), refreshHash: nil, refreshExpiresAt: nil))
        try await fixture.storage.sessions.revokeSession(id: sid, at: fixture.clock.now())

        #expect(try await notifier.deliverDue() == .init(notices: 1, delivered: 1, failed: 1))
        fixture.clock.advance(BackchannelLogoutNotifier.retryDelays[0] - 1)
        #expect(try await notifier.deliverDue() == .init(), "not before the first delay")
        fixture.clock.advance(1)
        #expect(try await notifier.deliverDue() == .init(notices: 1, delivered: 0, failed: 1))
        fixture.clock.advance(BackchannelLogoutNotifier.retryDelays[1])
        #expect(try await notifier.deliverDue() == .init(notices: 1, delivered: 1, failed: 0))
        #expect(try await notifier.deliverDue() == .init())
        let audiences = delivery.delivered.compactMap { CompactJWS.decode($0.token)?.claims?["aud"]?.stringValue }
        #expect(audiences == ["kid_test", "kid_test.users"])
        #expect(sink.failures.map { $0.fields["attempt"] } == ["1", "2"])
        #expect(sink.failures.allSatisfy { $0.fields["client"] == "kid_test.users" && $0.fields["final"] == "false"
                                           && $0.fields["session"] == sid && $0.fields["reason"] == "answered HTTP 400" })
    }

    @Test("after the last delay the broker gives up on the client, and the last failure says so")
    func givesUp() async throws {
        let delivery = RecordingDelivery(failures: ["kid_test": 1_000])
        let sink = RecordingSink()
        let fixture = try await Self.fixture(delivery: delivery, sink: sink)
        let notifier = try #require(fixture.engine.logoutNotifier)
        let sid = try #require(try await Self.signIn(fixture)["sid"]?.stringValue)
        try await fixture.storage.sessions.revokeSession(id: sid, at: fixture.clock.now())
        #expect(try await notifier.deliverDue().failed == 1)
        for delay in BackchannelLogoutNotifier.retryDelays {
            fixture.clock.advance(delay)
            #expect(try await notifier.deliverDue().failed == 1)
        }
        fixture.clock.advance(86_400)
        #expect(try await notifier.deliverDue() == .init(), "given up: the notice is gone")
        let attempts = BackchannelLogoutNotifier.retryDelays.count + 1
        #expect(sink.failures.count == attempts)
        #expect(sink.failures.map { $0.fields["final"] } == Array(repeating: "false", count: attempts - 1) + ["true"])
    }

    @Test("clients without a back-channel URI are not told; their notices are removed in the same round")
    func nobodyToTell() async throws {
        let delivery = RecordingDelivery()
        let fixture = try await Self.fixture(delivery: delivery, uri: nil)
        let notifier = try #require(fixture.engine.logoutNotifier)
        let sid = try #require(try await Self.signIn(fixture)["sid"]?.stringValue)
        try await fixture.storage.sessions.revokeSession(id: sid, at: fixture.clock.now())
        #expect(try await notifier.deliverDue() == .init(notices: 1, delivered: 0, failed: 0))
        #expect(try await notifier.deliverDue() == .init())
        #expect(delivery.delivered.isEmpty)
    }

    @Test("a logout through the end-session endpoint reaches the relying party too")
    func rpInitiatedLogout() async throws {
        let delivery = RecordingDelivery()
        let fixture = try await Self.fixture(delivery: delivery)
        let notifier = try #require(fixture.engine.logoutNotifier)
        var browser = BrowserContext()
        let completion = try await fixture.signedIn(browser: &browser)
        let code = try #require(EngineFixture.query(completion.redirect)["code"])
        let idToken = try #require(try await fixture.exchange(code).id_token)
        let outcome = try await fixture.engine.logout.logout(
            try EngineFixture.parameters([("id_token_hint", idToken)]), ssoToken: browser.ssoToken, confirmation: nil)
        #expect(outcome == .signedOut)
        #expect(try await notifier.deliverDue().delivered == 1)
        let sent = try #require(delivery.delivered.first?.token)
        #expect(CompactJWS.decode(sent)?.claims?["sid"] == CompactJWS.decode(idToken)?.claims?["sid"])
    }
}
