import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// Each action of the account page is an audit event with its `/metrics` counter, and holds no
/// form token or cookie (docs/account.md, "Security properties"; docs/operations.md).
@Suite("Account page: audit events")
struct AccountAuditTests {
    static func auditFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("idc-account-audit-\(UUID().uuidString).jsonl").path
    }

    /// The audit file's events once `done` holds for them (a background writer writes them).
    static func events(_ path: String, until done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        var events: [[String: Any]] = []
        for _ in 0..<100 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            events = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            if done(events) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return events
    }

    static func named(_ name: String, _ events: [[String: Any]]) -> [[String: Any]] {
        events.filter { $0["event"] as? String == name }
    }

    @Test("sign out a browser, remove an app, remove a device, sign out everywhere: account.* events by the user, the sessions they ended, counters")
    func sessionActions() async throws {
        let path = Self.auditFile()
        var files = RegistrationTests.registrationFiles()
        files["server.yaml"] = try #require(files["server.yaml"]).replacingOccurrences(
            of: "server:\n", with: "server:\n  audit:\n    file: \(path)\n")
        let broker = try await RegistrationTests.make(files: files)
        try await broker.withClient { client in
            _ = try await AccountFixture.webSignIn(MFABrowser(client, userAgent: AccountFixture.firefox))
            _ = try await AccountFixture.appSignIn(client, clientId: "kid_test.users")
            let instance = try await InstanceFlows.register(client, broker: broker)
            _ = try await InstanceFlows.signIn(client, instance)
            let me = MFABrowser(client, userAgent: AccountFixture.chrome)
            var page = AccountPage(html: try await me.openAccount(TestBroker.appKey).text)
            let token = try must(page.csrfToken)
            let firefox = try must(page.browsers.first { $0.label.hasPrefix("Firefox") }).id
            page = AccountPage(html: try await me.act("browsers/sign-out", TestBroker.appKey, page, [("session", firefox)]).text)
            page = AccountPage(html: try await me.act("apps/remove", TestBroker.appKey, page, [("client", "kid_test.users")]).text)
            page = AccountPage(html: try await me.act("devices/remove", TestBroker.appKey, page, [("device", instance.clientId)]).text)
            #expect(page.error == nil && page.devices.isEmpty)
            let cookie = try must(me.cookies["idc_sso"])
            #expect(try await me.act("sign-out-everywhere", TestBroker.appKey, page).status == .ok)

            let events = try await Self.events(path) { !Self.named("account.signed_out_everywhere", $0).isEmpty }
            func named(_ name: String) -> [[String: Any]] { Self.named(name, events) }
            let signedOut = try #require(named("account.browser_signed_out").first)
            #expect(signedOut["session"] as? String == firefox && signedOut["this_browser"] as? String == "false")
            #expect(signedOut["user"] as? String == "alice" && signedOut["auth_service"] as? String == "users" && signedOut["by"] as? String == "user")
            #expect(named("account.app_removed").first?["client"] as? String == "kid_test.users")
            #expect(named("account.device_removed").first?["client"] as? String == instance.clientId)
            let everywhere = try #require(named("account.signed_out_everywhere").first)
            #expect(Int(everywhere["sessions"] as? String ?? "") ?? 0 >= 1, "this browser's at least")
            #expect(named("instance.deleted").first?["by"] as? String == "user")
            let ended = named("session.ended").filter { $0["reason"] as? String == "user" }
            #expect(ended.contains { $0["session"] as? String == firefox })
            let raw = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!raw.contains(token) && !raw.contains(cookie), "no form token or cookie in the audit trail")

            let metrics = try await client.get("/metrics").text
            for event in ["account.browser_signed_out", "account.app_removed", "account.device_removed", "account.signed_out_everywhere"] {
                #expect(metrics.contains(#"idconnect_audit_events_total{event="\#(event)"} 1"#), "\(event)")
            }
        }
    }

    @Test("second factors: enrolment, renamed and removed passkeys, new recovery codes are mfa.* events by the user; another user's real passkey stays")
    func factorActions() async throws {
        let path = Self.auditFile()
        let broker = try await MFAFixture.make(auditFile: path)
        let optional = AccountFactorTests.optional
        try await broker.withClient { client in
            // Bob adds a passkey from his page.
            let bob = MFABrowser(client)
            let bobPage = AccountPage(html: try await bob.openAccount(optional, username: "bob", password: "bobpw").text)
            let adding = MFAPage(html: try await bob.get(AccountPaths.action("passkeys/new", optional)).text)
            let options = try MFAPasskeyTests.options(adding)
            let bobsKey = SoftwareAuthenticator()
            let added = try await bob.postJSON(AccountPaths.action("passkeys", optional), [
                "csrf_token": try must(bobPage.csrfToken), "challenge": options["challenge"] as! String,
                "credential": try bobsKey.register(options), "name": "Bob's key"])
            #expect(added.status == .ok)

            // Alice: an authenticator app, new recovery codes; bob's passkey id refused.
            let alice = MFABrowser(client)
            _ = try await alice.openAccount(optional)
            let setup = try await alice.get(AccountPaths.action("authenticator", optional))
            let key = MFAPage(html: setup.text)
            var page = AccountPage(html: try await alice.act("authenticator", optional, AccountPage(html: setup.text), [
                ("setup", try must(key.capture(#"name="setup" value="([^"]+)""#))), ("otp", try key.code(at: broker.clock.now()))]).text)
            #expect(page.notice?.hasPrefix("Authenticator app set up") == true)
            for (action, fields) in [("passkeys/rename", [("passkey", bobsKey.credentialIdText), ("name", "Mine now")]),
                                     ("passkeys/remove", [("passkey", bobsKey.credentialIdText)])] {
                let refused = try await alice.act(action, optional, page, fields)
                #expect(refused.status == .badRequest && AccountPage(html: refused.text).error?.contains("not registered to your account") == true)
            }
            let bobNow = AccountPage(html: try await bob.get(AccountPaths.page(optional)).text)
            #expect(bobNow.passkeys.map(\.name) == ["Bob's key"], "bob's passkey is untouched")
            page = AccountPage(html: try await alice.act("recovery-codes", optional, page).text)
            #expect(page.recoveryCodes.count == 10)
            page = AccountPage(html: try await alice.act("authenticator/remove", optional, page).text)
            // Bob renames and removes his own.
            var mine = AccountPage(html: try await bob.act("passkeys/rename", optional, bobNow, [("passkey", bobsKey.credentialIdText),
                                                                                               ("name", "Old key")]).text)
            mine = AccountPage(html: try await bob.act("passkeys/remove", optional, mine, [("passkey", bobsKey.credentialIdText)]).text)
            #expect(mine.passkeys.isEmpty)

            let events = try await Self.events(path) { Self.named("mfa.removed", $0).count == 2 }
            func named(_ name: String) -> [[String: Any]] { Self.named(name, events) }
            #expect(Set(named("mfa.enrolled").compactMap { $0["method"] as? String }) == ["totp", "webauthn"])
            #expect(named("mfa.recovery_codes_renewed").first?["user"] as? String == "alice")
            #expect(named("mfa.passkey_renamed").map { $0["user"] as? String } == ["bob"], "only bob's own rename")
            let removed = named("mfa.removed")
            #expect(removed.count == 2 && removed.allSatisfy { $0["by"] as? String == "user" })
            #expect(Set(removed.compactMap { $0["method"] as? String }) == ["totp", "webauthn"])
            let raw = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!raw.contains(try must(key.totpSecret).replacingOccurrences(of: " ", with: "")))
            for code in page.recoveryCodes { #expect(!raw.contains(code)) }
        }
    }
}
