import EngineTesting
import Foundation
import OAuthEngine
import Testing

/// `AccountEndpoint` (docs/account.md): signing in to the page through the broker's own flow,
/// what it lists, and the actions that end sign-ins, each bound to the page's CSRF token.
@Suite("AccountEndpoint")
struct AccountEndpointTests {
    @Test("without a sign-in the page signs the person in first and comes back with a fresh SSO cookie")
    func signInFirst() async throws {
        let fixture = try await EngineFixture()
        var account = AccountBrowser(fixture: fixture, clientId: EngineFixture.appKey)
        let first = await account.show()
        guard case .signIn(.loginForm(let form)) = first.outcome, let flow = first.flow else { throw UnexpectedOutcome("\(first)") }
        account.browser.binding = first.binding
        let completion = try #require(try await fixture.submit(form, browser: &account.browser).completion)
        #expect(completion.redirect.url.hasPrefix(fixture.engine.account.urls.callback + "?"))
        var back = account.request
        back.flow = flow
        let callback = await fixture.engine.account.signIn.callback(try EngineFixture.parameters(EngineFixture.query(completion.redirect).map { ($0, $1) }),
                                                             request: back)
        guard case .redirect(let page) = callback.outcome, let sso = callback.sso else { throw UnexpectedOutcome("\(callback)") }
        #expect(page.hasPrefix(fixture.engine.account.urls.page(EngineFixture.appKey)) && callback.clearFlow)
        account.browser.ssoToken = sso.value
        #expect(try await account.page().user.id == "alice")
        // The account page's code is its own: the token endpoint refuses it.
        #expect(await EngineFixture.errorCode { try await fixture.exchange(EngineFixture.query(completion.redirect)["code"] ?? "") }
            == "invalid_grant")
    }

    @Test("it lists the user, this browser and the apps holding the user's tokens")
    func listing() async throws {
        let fixture = try await EngineFixture()
        let account = try await AccountBrowser.signedIn(fixture)
        _ = try await fixture.passwordGrant()
        let page = try await account.page()
        #expect(page.user.id == "alice" && page.user.name == "Alice" && page.user.email == "alice@example.org")
        #expect(page.user.groups == ["admins", "staff"])
        #expect(page.browsers.count == 1 && page.browsers[0].isCurrent && page.browsers[0].browser.hasPrefix("Chrome"))
        #expect(page.apps.map(\.clientId) == [EngineFixture.appKey])
    }

    @Test("removing an app ends its families: refresh invalid_grant, access token invalid_token; the browser stays signed in")
    func removeApp() async throws {
        let fixture = try await EngineFixture()
        let account = try await AccountBrowser.signedIn(fixture)
        let app = try await fixture.passwordGrant()
        let forged = await fixture.engine.account.sessions.removeApp(account.request, form: try EngineFixture.parameters([
            ("csrf_token", "forged"), ("client", EngineFixture.appKey)]))
        guard case .errorPage = forged.outcome else { throw UnexpectedOutcome("a forged form was obeyed: \(forged)") }
        let removed = try AccountBrowser.page(await fixture.engine.account.sessions.removeApp(account.request, form: try await account.form([
            ("client", EngineFixture.appKey)])))
        #expect(removed.notice?.english.hasPrefix("Removed Test users (\(EngineFixture.appKey))") == true && removed.apps.isEmpty)
        #expect(await EngineFixture.errorCode { try await fixture.refresh(app.refresh_token) } == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.engine.validation.validate(accessToken: app.access_token, basic: nil) }
            == "invalid_token")
        #expect(try await account.page().browsers.count == 1)
        let again = await fixture.engine.account.sessions.removeApp(account.request, form: try await account.form([("client", EngineFixture.appKey)]))
        guard case .page(_, status: 400) = again.outcome else { throw UnexpectedOutcome("\(again)") }
    }

    @Test("sign out everywhere ends every sign-in of the user here, this browser's too")
    func signOutEverywhere() async throws {
        let fixture = try await EngineFixture()
        let account = try await AccountBrowser.signedIn(fixture)
        let app = try await fixture.passwordGrant()
        let bob = try await fixture.passwordGrant(username: "bob", password: "bobpw")
        let result = await fixture.engine.account.sessions.signOutEverywhere(account.request, form: try await account.form([]))
        guard case .signedOut(let message, _, _) = result.outcome else { throw UnexpectedOutcome("\(result)") }
        #expect(message.english.contains("sign-ins ended: 2"))
        #expect(await EngineFixture.errorCode { try await fixture.refresh(app.refresh_token) } == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.refresh(bob.refresh_token) } == nil)
        guard case .signIn = await account.show().outcome else { throw UnexpectedOutcome("the browser is still signed in") }
    }

    @Test("removing a device removes the instance: its tokens end and its credentials are invalid_client")
    func removeDevice() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.registeringEnvironment()])
        let instance = try await fixture.registerInstance()
        let tokens = try await fixture.signIn(instance: instance)
        let account = try await AccountBrowser.signedIn(fixture)
        #expect(try await account.page().devices.map(\.clientId) == [instance.client_id])
        let page = try AccountBrowser.page(await fixture.engine.account.sessions.removeDevice(account.request, form: try await account.form([
            ("device", instance.client_id)])))
        #expect(page.devices.isEmpty)
        #expect(await EngineFixture.errorCode {
            try await fixture.refresh(tokens.refresh_token, clientId: instance.client_id, basic: EngineFixture.credentials(of: instance))
        } == "invalid_client")
    }
}
