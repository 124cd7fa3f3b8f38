import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import Logging
import OAuthEngine
import Synchronization

/// A fixture whose default auth service (`users`) asks for consent, and the steps of the consent
/// screen as a browser takes them.
struct ConsentFixture {
    final class RecordingSink: AuditSink, Sendable {
        let events = Mutex<[AuditEvent]>([])
        func write(_ event: AuditEvent, at date: Date) { events.withLock { $0.append(event) } }
        func named(_ name: AuditEvent.Name) -> [AuditEvent] { events.withLock { $0 }.filter { $0.name == name } }
    }

    /// Records the permission notifications the engine posts.
    final class RecordingNotifier: PermissionNotifying, Sendable {
        let tokens = Mutex<[(String, URL)]>([])
        func deliver(statusToken: String, to uri: URL) async throws { tokens.withLock { $0.append((statusToken, uri)) } }
        /// Waits up to 2 s for `count` notifications; returns their claims.
        func claims(count: Int) async throws -> [[String: JSONValue]] {
            for _ in 0..<200 where tokens.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
            return tokens.withLock { $0 }.map { EngineFixture.claims($0.0) }
        }
    }

    let fixture: EngineFixture
    let sink: RecordingSink
    let notifier = RecordingNotifier()
    /// A second confidential client (another environment).
    static let otherKey = "kid_other"
    static let otherCredentials = BasicCredentials(user: otherKey, password: "other-app-secret-1234")

    init(mode: ConsentSettings.Mode = .remembered) async throws {
        var quiet = Logger(label: AuditTrail.label)
        quiet.logLevel = .critical
        let sink = RecordingSink()
        var services = EngineFixture.defaultServices
        services[0].consent = ConsentSettings(mode: mode, logoURI: URL(string: "https://app.example.com/logo.png"),
                                              policyURI: URL(string: "https://app.example.com/privacy"),
                                              scopeDescriptions: ["email": "Read your work email address"])
        let environment = EngineFixture.environment(services: services) { $0.name = "Expense Reports" }
        let other = EngineFixture.environment(appKey: Self.otherKey, appSecret: Self.otherCredentials.password,
                                              services: [EngineFixture.service("users")])
        fixture = try await EngineFixture(environments: [environment, other], permissionDelivery: notifier,
                                          audit: AuditTrail(logger: quiet, sinks: [sink]))
        self.sink = sink
    }

    var engine: BrokerEngine { fixture.engine }

    static func pairs(_ scope: String, _ extra: [(String, String)] = []) -> [(String, String)] {
        EngineFixture.authorizationPairs(scope: scope) + extra
    }

    /// Signs alice in on the login form; the consent page the sign-in goes on to.
    func consentPage(scope: String, extra: [(String, String)] = [], browser: inout BrowserContext) async throws -> String {
        let outcome = try await fixture.browserSignIn(Self.pairs(scope, extra), browser: &browser)
        guard case .finished(.consent(let page)) = outcome else { throw UnexpectedOutcome("expected the consent page, got \(outcome)") }
        return page
    }

    func show(_ page: String, browser: BrowserContext) async throws -> ConsentPageModel {
        try await engine.consentScreen.show(EngineFixture.lastPathComponent(page), browser: browser)
    }

    /// Posts `decision` with the page's CSRF token and `grant_<scope>` for each of `granted`.
    func decide(_ page: String, _ decision: String, granted: [String] = [], browser: inout BrowserContext,
                token: String? = nil) async throws -> ConsentOutcome {
        var csrf = token ?? ""
        if token == nil { csrf = try await show(page, browser: browser).csrfToken }
        let form = try EngineFixture.parameters([("csrf_token", csrf), ("decision", decision)] + granted.map { ("grant_\($0)", "1") })
        let outcome = try await engine.consentScreen.decide(EngineFixture.lastPathComponent(page), browser: browser, form: form)
        if case .finished(.signedIn(let completion)) = outcome, let sso = completion.sso { browser.ssoToken = sso.value }
        return outcome
    }

    /// The code an outcome sends back to the client.
    static func code(_ outcome: ConsentOutcome) -> String? {
        guard case .finished(.signedIn(let completion)) = outcome else { return nil }
        return EngineFixture.query(completion.redirect)["code"]
    }

    static func code(_ outcome: AuthorizeOutcome) -> String? {
        guard case .redirect(let answer, _) = outcome else { return nil }
        return EngineFixture.query(answer)["code"]
    }
}
