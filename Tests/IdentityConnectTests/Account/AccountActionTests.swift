import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// The account page's actions (docs/account.md) on every backend, acted on one broker and checked
/// on another sharing its storage: what each ends, and that the current browser keeps working.
@Suite("Account page: actions")
struct AccountActionTests {
    @Test("sign out the other browser, remove an app, remove a device: each one's tokens and credentials fail at every instance",
          arguments: StoreBackend.allCases)
    func endOneByOne(_ backend: StoreBackend) async throws {
        let broker = try await AccountFixture.make(backend: backend)
        let other = try await AccountFixture.sibling(of: broker)
        try await broker.withClient { client in
            try await other.withClient { elsewhere in
                // The other browser, an app without a browser, and a mobile instance, all alice.
                let firefox = MFABrowser(client, userAgent: AccountFixture.firefox)
                let webTokens = try await AccountFixture.webSignIn(firefox)
                let appTokens = try await AccountFixture.appSignIn(client, clientId: "kid_test.users")
                let instance = try await InstanceFlows.register(client, broker: broker)
                let instanceTokens = try await InstanceFlows.signIn(client, instance).json
                #expect(instanceTokens["refresh_token"] != nil)

                let me = MFABrowser(client, userAgent: AccountFixture.chrome)
                var page = AccountPage(html: try await me.openAccount(TestBroker.appKey).text)
                let firefoxRow = try must(page.browsers.first { !$0.current })
                #expect(firefoxRow.label == "Firefox 128 on Linux")
                #expect(Set(page.apps) == ["kid_test", "kid_test.users"])
                #expect(page.devices == [instance.clientId])

                // 1. Sign out the other browser.
                var answer = try await me.act("browsers/sign-out", TestBroker.appKey, page, [("session", firefoxRow.id)])
                #expect(answer.status == .ok)
                page = AccountPage(html: answer.text)
                #expect(page.notice?.hasPrefix("Signed out Firefox 128 on Linux") == true)
                #expect(page.browsers.map(\.label) == ["Chrome 120 on macOS 10.15.7"])
                let web = try await AccountFixture.tokenState(elsewhere, webTokens)
                #expect(web.validate == 401 && !web.introspectActive && web.refresh == "invalid_grant")
                let again = try await firefox.get(InstanceFlows.authorizeQuery(clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                                               scope: "openid"))
                #expect(LoginFormFields(html: again.text) != nil, "that browser signs in again")

                // 2. Remove the app.
                answer = try await me.act("apps/remove", TestBroker.appKey, page, [("client", "kid_test.users")])
                page = AccountPage(html: answer.text)
                #expect(page.notice?.contains("Removed Test users (kid_test.users)") == true, "\(page.notice ?? answer.text)")
                #expect(!page.apps.contains("kid_test.users"))
                let app = try await AccountFixture.tokenState(elsewhere, appTokens, clientId: "kid_test.users")
                #expect(app.validate == 401 && !app.introspectActive && app.refresh == "invalid_grant")

                // 3. Remove the device.
                answer = try await me.act("devices/remove", TestBroker.appKey, page, [("device", instance.clientId)])
                page = AccountPage(html: answer.text)
                #expect(page.notice?.contains(instance.clientId) == true)
                #expect(page.devices.isEmpty)
                let device = try await AccountFixture.tokenState(elsewhere, instanceTokens, clientId: instance.clientId, basic: instance.basic)
                #expect(device.validate == 401 && device.refresh == "invalid_client")
                let relogin = try await InstanceFlows.relogin(elsewhere, instance)
                #expect(relogin.status == .unauthorized && relogin.json["error"] as? String == "invalid_client")
                let management = try await elsewhere.get(instance.registrationPath, headers: RegistrationTests.bearer(instance.registrationToken))
                #expect(management.status == .unauthorized)

                // This browser keeps working: its page, and SSO into an app.
                #expect(try await me.get(AccountPaths.page(TestBroker.appKey)).status == .ok)
                let sso = try await me.get(InstanceFlows.authorizeQuery(clientId: TestBroker.appKey, redirect: TestBroker.redirect, scope: "openid"))
                #expect(sso.status == .found)
                #expect(queryItems(sso.location ?? "")["code"] != nil)
            }
        }
    }

    @Test("sign out everywhere: every browser, app and device of the user at this auth service, this browser too; others untouched",
          arguments: StoreBackend.allCases)
    func everywhere(_ backend: StoreBackend) async throws {
        let broker = try await AccountFixture.make(backend: backend)
        try await broker.withClient { client in
            let webTokens = try await AccountFixture.webSignIn(MFABrowser(client, userAgent: AccountFixture.firefox))
            let appTokens = try await AccountFixture.appSignIn(client, clientId: "kid_test.users")
            let otherService = try await AccountFixture.appSignIn(client, clientId: "kid_test.opaque")
            let bobTokens = try await AccountFixture.appSignIn(client, clientId: "kid_test.users", username: "bob", password: "bobpw")
            let instance = try await InstanceFlows.register(client, broker: broker)
            _ = try await InstanceFlows.signIn(client, instance)

            let me = MFABrowser(client, userAgent: AccountFixture.chrome)
            let page = AccountPage(html: try await me.openAccount(TestBroker.appKey).text)
            let answer = try await me.act("sign-out-everywhere", TestBroker.appKey, page)
            #expect(answer.status == .ok)
            #expect(answer.text.contains("You signed out everywhere: sign-ins ended: 4"), "\(answer.text)")
            for tokens in [webTokens, appTokens] {
                #expect(try await Flows.validate(client, try must(tokens["access_token"] as? String)).status == .unauthorized)
            }
            #expect(try await InstanceFlows.relogin(client, instance).status != .ok, "the device must sign in again")
            #expect(try await Flows.validate(client, try must(otherService["access_token"] as? String)).status == .ok, "another auth service")
            #expect(try await Flows.validate(client, try must(bobTokens["access_token"] as? String)).status == .ok, "another user")
            let next = try await me.get(AccountPaths.page(TestBroker.appKey))
            #expect(next.text.contains(#"name="password""#), "this browser signs in again")
        }
    }
}
