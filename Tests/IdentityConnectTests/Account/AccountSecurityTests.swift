import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// The account page is nobody else's way in (docs/account.md, "Security"; docs/security.md):
/// form tokens bound to the browser's session, rows only of this user at this auth service.
@Suite("Account page: security")
struct AccountSecurityTests {
    @Test("POSTs without the form token, with another user's token, or without a sign-in change nothing")
    func csrf() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient { client in
            let webTokens = try await AccountFixture.webSignIn(MFABrowser(client, userAgent: AccountFixture.firefox))
            let alice = MFABrowser(client)
            let page = AccountPage(html: try await alice.openAccount(TestBroker.appKey).text)
            let target = try must(page.browsers.first { !$0.current }).id
            let bob = MFABrowser(client)
            let bobPage = AccountPage(html: try await bob.openAccount(TestBroker.appKey, username: "bob", password: "bobpw").text)

            let missing = try await alice.post(AccountPaths.action("browsers/sign-out", TestBroker.appKey), [("session", target)])
            #expect(missing.status == .badRequest && missing.text.contains("The form is no longer valid"))
            let bobsToken = try await alice.act("browsers/sign-out", TestBroker.appKey, page, [("session", target)], token: bobPage.csrfToken)
            #expect(bobsToken.status == .badRequest)
            let forged = try await alice.act("sign-out-everywhere", TestBroker.appKey, page, token: String(repeating: "A", count: 43))
            #expect(forged.status == .badRequest)
            // A cross-site POST carries no cookie (SameSite=Lax): no sign-in, so back to the page.
            let cookieless = try await client.postForm(AccountPaths.action("sign-out-everywhere", TestBroker.appKey),
                                                       [("csrf_token", try must(page.csrfToken))])
            #expect(cookieless.status == .seeOther && cookieless.location == "http://127.0.0.1:8080/account?client_id=kid_test")
            // Another auth service's page has its own token: alice's token for `users` does not act at `opaque`.
            let atOpaque = try await alice.act("sign-out-everywhere", "kid_test.opaque", page)
            #expect(atOpaque.status == .seeOther, "no sign-in at opaque in this browser: nothing happens")
            #expect(try await Flows.validate(client, try must(webTokens["access_token"] as? String)).status == .ok, "nothing ended")
        }
    }

    @Test("another user's rows are neither shown nor changeable: forged session, app, device and passkey ids are refused")
    func crossUser() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient { client in
            let aliceWeb = MFABrowser(client, userAgent: AccountFixture.firefox)
            let aliceTokens = try await AccountFixture.webSignIn(aliceWeb)
            let aliceApp = try await AccountFixture.appSignIn(client, clientId: "kid_test.users")
            let instance = try await InstanceFlows.register(client, broker: broker)
            let instanceTokens = try await InstanceFlows.signIn(client, instance).json
            let alice = AccountPage(html: try await MFABrowser(client).openAccount(TestBroker.appKey).text)
            let aliceSession = try must(alice.browsers.first { !$0.current }).id

            let bob = MFABrowser(client)
            let bobPage = AccountPage(html: try await bob.openAccount(TestBroker.appKey, username: "bob", password: "bobpw").text)
            #expect(!bobPage.html.contains(aliceSession) && !bobPage.html.contains(instance.clientId))
            #expect(bobPage.apps.isEmpty && bobPage.devices.isEmpty && bobPage.browsers.count == 1)
            for (path, field, value) in [("browsers/sign-out", "session", aliceSession), ("apps/remove", "client", "kid_test.users"),
                                         ("apps/remove", "client", "kid_test"), ("devices/remove", "device", instance.clientId),
                                         ("passkeys/rename", "passkey", "cred-of-someone"), ("browsers/sign-out", "session", "")] {
                let answer = try await bob.act(path, TestBroker.appKey, bobPage, [(field, value), ("name", "mine")])
                #expect(answer.status == .badRequest, "\(path) \(value)")
                #expect(AccountPage(html: answer.text).error != nil, "says why in words")
            }
            #expect(try await Flows.validate(client, try must(aliceTokens["access_token"] as? String)).status == .ok)
            #expect(try await Flows.validate(client, try must(aliceApp["access_token"] as? String)).status == .ok)
            #expect(try await Flows.validate(client, try must(instanceTokens["access_token"] as? String)).status == .ok)
            #expect(try await InstanceFlows.relogin(client, instance).status == .ok)
        }
    }

    @Test("another auth service's sessions are not this one's rows, though the user id is the same")
    func otherAuthService() async throws {
        let broker = try await AccountFixture.make()
        try await broker.withClient { client in
            let elsewhere = MFABrowser(client, userAgent: AccountFixture.firefox)
            let opaqueTokens = try await AccountFixture.webSignIn(elsewhere, clientId: "kid_test.opaque")
            let opaquePage = AccountPage(html: try await elsewhere.openAccount("kid_test.opaque").text)
            let opaqueSession = try must(opaquePage.browsers.first).id
            let me = MFABrowser(client)
            let page = AccountPage(html: try await me.openAccount(TestBroker.appKey).text)
            #expect(page.browsers.count == 1 && !page.html.contains(opaqueSession) && page.apps.isEmpty)
            let answer = try await me.act("browsers/sign-out", TestBroker.appKey, page, [("session", opaqueSession)])
            #expect(answer.status == .badRequest)
            #expect(try await Flows.validate(client, try must(opaqueTokens["access_token"] as? String)).status == .ok)
        }
    }
}
