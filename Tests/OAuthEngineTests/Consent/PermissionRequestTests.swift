import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import StoreContracts
import Testing

/// Permission requests for back ends (docs/consent.md, "Permission requests") through the engine:
/// asked for, decided by the named user on the consent screen, read by id and by reference,
/// notified, refused for anyone else.
@Suite("Permission requests")
struct PermissionRequestTests {
    static let notification = "http://127.0.0.1:9/permission-hook"

    static func ask(_ consent: ConsentFixture, user: String = TestUser.alice.username, reference: String? = "order-42",
                    extra: [(String, String)] = [], basic: BasicCredentials? = EngineFixture.appCredentials) async throws -> PermissionResponse {
        var pairs = [("username", user), ("scope", "openid email"), ("redirect_uri", EngineFixture.redirect),
                     ("notification_uri", notification)] + extra
        if let reference { pairs.append(("external_reference", reference)) }
        return try await consent.engine.permissions.create(try EngineFixture.parameters(pairs), basic: basic, clientAddress: nil)
    }

    /// Follows the permission's link in `browser` and signs in as `user`: the consent page.
    static func follow(_ consent: ConsentFixture, _ created: PermissionResponse, user: TestUser = .alice,
                       browser: inout BrowserContext) async throws -> String {
        let query = EngineFixture.query(try #require(created.authorization_url))
        let pairs = query.map { ($0.key, $0.value) }
        let form = try await consent.fixture.loginForm(pairs, browser: &browser)
        #expect(form.username == TestUser.alice.username, "the named user is filled in")
        let outcome = try await consent.fixture.submit(form, username: user.username, password: user.password, browser: &browser)
        guard case .finished(.consent(let page)) = outcome else { throw UnexpectedOutcome("expected the consent page, got \(outcome)") }
        return page
    }

    static func status(_ consent: ConsentFixture, id: String? = nil, reference: String? = nil,
                       basic: BasicCredentials = EngineFixture.appCredentials) async throws -> PermissionResponse {
        try await consent.engine.permissions.status(id: id, externalReference: reference, parameters: OAuthParameters(), basic: basic)
    }

    @Test("asked, then allowed by the named user: the code redeems with the returned verifier, status granted by id and reference, notified")
    func granted() async throws {
        let consent = try await ConsentFixture()
        let created = try await Self.ask(consent)
        #expect(created.status == "pending" && created.state != nil && created.code_verifier != nil && created.expires_in == 86_400)
        #expect(try await Self.status(consent, reference: "order-42").status == "pending")
        var browser = BrowserContext()
        let page = try await Self.follow(consent, created, browser: &browser)
        let outcome = try await consent.decide(page, "allow", granted: [], browser: &browser)
        guard case .finished(.signedIn(let completion)) = outcome else { throw UnexpectedOutcome("\(outcome)") }
        let fields = EngineFixture.query(completion.redirect)
        #expect(fields["state"] == created.state)
        let tokens = try await consent.fixture.exchange(try #require(fields["code"]), verifier: created.code_verifier)
        #expect(tokens.scope == "openid", "email was unticked")
        let byId = try await Self.status(consent, id: created.id)
        #expect(byId.status == "granted" && byId.scope == "openid" && byId.decided_at != nil && byId.authorization_url == nil)
        #expect(try await Self.status(consent, reference: "order-42") == byId)
        let notified = try await consent.notifier.claims(count: 1)
        #expect(notified.first?["status"] == .string("granted") && notified.first?["permission_id"] == .string(created.id))
        #expect(notified.first?["aud"] == .string(EngineFixture.appKey) && notified.first?["external_reference"] == .string("order-42"))
        #expect(consent.sink.named(.permissionGranted).count == 1 && consent.sink.named(.permissionRequested).count == 1)
    }

    @Test("another user signing in is refused on an error page and the request stays pending; the named user then denies")
    func otherUserThenDenied() async throws {
        let consent = try await ConsentFixture()
        let created = try await Self.ask(consent)
        var intruder = BrowserContext()
        let page = try await Self.follow(consent, created, user: .bob, browser: &intruder)
        #expect(await EngineFixture.errorCode { try await consent.show(page, browser: intruder) } == "access_denied")
        #expect(await EngineFixture.errorCode { try await consent.decide(page, "allow", browser: &intruder, token: "x") } == "access_denied")
        #expect(try await Self.status(consent, id: created.id).status == "pending")

        var browser = BrowserContext()
        let mine = try await Self.follow(consent, created, browser: &browser)
        guard case .redirect(let answer) = try await consent.decide(mine, "deny", browser: &browser) else { throw UnexpectedOutcome("deny") }
        #expect(EngineFixture.query(answer)["error"] == "access_denied")
        #expect(try await Self.status(consent, id: created.id).status == "denied")
        // The link is spent once decided.
        var late = BrowserContext()
        let again = try await consent.fixture.authorize(EngineFixture.query(created.authorization_url!).map { ($0.key, $0.value) }, browser: &late)
        guard case .errorPage = again else { throw UnexpectedOutcome("\(again)") }
    }

    @Test("expired after its lifetime; revoked when the user removes the app's access on the account page")
    func expiredAndRevoked() async throws {
        let consent = try await ConsentFixture()
        let short = try await Self.ask(consent, reference: "short", extra: [("expires_in", "60")])
        consent.fixture.clock.advance(61)
        #expect(try await Self.status(consent, id: short.id).status == "expired")
        #expect(consent.sink.named(.permissionExpired).count == 1)

        let created = try await Self.ask(consent, reference: "long")
        var browser = BrowserContext(clientAddress: "192.0.2.10", userAgent: AccountBrowser.userAgent)
        let page = try await Self.follow(consent, created, browser: &browser)
        _ = try await consent.decide(page, "allow", granted: ["email"], browser: &browser)
        #expect(try await Self.status(consent, id: created.id).status == "granted")
        let account = AccountBrowser(fixture: consent.fixture, browser: browser, clientId: EngineFixture.appKey)
        let row = try #require(try await account.page().consents.first)
        _ = await consent.engine.account.consents.removeAccess(account.request, form: try await account.form([("client", row.clientId)]))
        let revoked = try await Self.status(consent, id: created.id)
        #expect(revoked.status == "revoked" && revoked.scope == "openid email")
    }

    @Test("refused: no or wrong credentials, both or neither user, a reused reference, a bad notification URI, a bad redirect or scope; another client reads nothing")
    func refusals() async throws {
        let consent = try await ConsentFixture()
        #expect(await EngineFixture.errorCode { try await Self.ask(consent, basic: nil) } == "invalid_client")
        #expect(await EngineFixture.errorCode {
            try await Self.ask(consent, basic: BasicCredentials(user: EngineFixture.appKey, password: "wrong"))
        } == "invalid_client")
        #expect(await EngineFixture.errorCode { try await Self.ask(consent, extra: [("sub", "abc")]) } == "invalid_request")
        let created = try await Self.ask(consent)
        #expect(await EngineFixture.errorCode { try await Self.ask(consent) } == "invalid_request", "order-42 is taken")
        for uri in ["http://example.com/hook", "https://example.com/hook#x", "javascript:alert(1)"] {
            #expect(await EngineFixture.errorCode {
                try await Self.ask(consent, reference: nil, extra: [("notification_uri", uri)])
            } == "invalid_request", "\(uri)")
        }
        for extra in [[("expires_in", "5")], [("code_challenge", "abc"), ("code_challenge_method", "plain")]] {
            #expect(await EngineFixture.errorCode { try await Self.ask(consent, reference: nil, extra: extra) } == "invalid_request")
        }
        let badRedirect = try EngineFixture.parameters([("username", "alice"), ("scope", "openid"), ("redirect_uri", "https://evil.example/cb")])
        #expect(await EngineFixture.errorCode {
            try await consent.engine.permissions.create(badRedirect, basic: EngineFixture.appCredentials, clientAddress: nil)
        } != nil)
        // Another client: told it does not exist, by id and by reference.
        let error = await EngineFixture.errorCode { try await Self.status(consent, id: created.id, basic: ConsentFixture.otherCredentials) }
        #expect(error == "invalid_request")
        #expect(await EngineFixture.errorCode {
            try await Self.status(consent, reference: "order-42", basic: ConsentFixture.otherCredentials)
        } == "invalid_request")
        #expect(await EngineFixture.errorCode { try await Self.status(consent, id: String(repeating: "x", count: 300)) } == "invalid_request")
    }
}
