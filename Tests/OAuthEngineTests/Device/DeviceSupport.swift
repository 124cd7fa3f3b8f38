import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import OAuthEngine

/// The device grant's steps as the device and the person's browser take them (docs/device-grant.md).
extension EngineFixture {
    static let deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// An environment whose first auth service allows the device grant; the second does not.
    static func deviceEnvironment(appSecret: String? = EngineFixture.appSecret) -> Environment {
        EngineFixture.environment(appSecret: appSecret, services: [
            EngineFixture.service("tv") { $0.deviceGrant = DeviceGrantSettings(lifetime: 600, interval: 5) },
            EngineFixture.service("web"),
        ]) { $0.name = "Living Room TV" }
    }

    /// `POST /oauth/device_authorization`.
    func startDevice(clientId: String = EngineFixture.appKey, scope: String = "openid profile offline_access",
                     basic: BasicCredentials? = EngineFixture.appCredentials, clientAddress: String? = nil) async throws
        -> DeviceAuthorizationResponse {
        try await engine.deviceAuthorization.authorize(try Self.parameters([("client_id", clientId), ("scope", scope)]), basic: basic,
                                                       clientAddress: clientAddress)
    }

    /// A poll of the token endpoint with `deviceCode`.
    func poll(_ deviceCode: String, clientId: String = EngineFixture.appKey,
              basic: BasicCredentials? = EngineFixture.appCredentials) async throws -> TokenResponse {
        try await token([("grant_type", Self.deviceGrantType), ("device_code", deviceCode), ("client_id", clientId)], basic: basic)
    }

    /// The device page with `userCode` (as from `verification_uri_complete`): the confirmation.
    func deviceConfirmation(_ userCode: String, browser: inout BrowserContext) async throws -> DeviceConfirmation {
        let result = await engine.deviceVerification.page(userCode: userCode, browser: browser)
        if let binding = result.binding { browser.binding = binding }
        guard case .confirm(let confirmation) = result.outcome else { throw UnexpectedOutcome("expected the confirmation, got \(result.outcome)") }
        return confirmation
    }

    /// Continue (or Cancel) on the confirmation; the browser keeps the flow cookie in `flow`.
    func decide(_ confirmation: DeviceConfirmation, allow: Bool = true, browser: inout BrowserContext,
                flow: inout String?) async throws -> DeviceResult {
        let fields = try Self.parameters([("csrf_token", confirmation.csrfToken),
                                          ("user_code", confirmation.userCode.replacingOccurrences(of: "-", with: "")),
                                          ("decision", allow ? "allow" : "deny")])
        let result = await engine.deviceVerification.decide(fields, browser: browser)
        if let binding = result.binding { browser.binding = binding }
        if let sealed = result.flow { flow = sealed }
        return result
    }

    /// Confirmation and Continue in a browser not signed in yet: the login form it lands on.
    func deviceLoginForm(_ userCode: String, browser: inout BrowserContext, flow: inout String?) async throws -> LoginFormModel {
        let confirmation = try await deviceConfirmation(userCode, browser: &browser)
        let signIn = try await decide(confirmation, browser: &browser, flow: &flow)
        guard case .signIn(.loginForm(let form)) = signIn.outcome else { throw UnexpectedOutcome("\(signIn.outcome)") }
        return form
    }

    /// The whole browser side: confirmation, Continue, the login form, the callback. Returns the
    /// last page.
    func approveDevice(_ userCode: String, username: String = TestUser.alice.username, password: String = TestUser.alice.password,
                       browser: inout BrowserContext) async throws -> DeviceResult {
        var flow: String?
        let confirmation = try await deviceConfirmation(userCode, browser: &browser)
        let started = try await decide(confirmation, browser: &browser, flow: &flow)
        let answer: ClientAnswer
        switch started.outcome {
        case .signIn(.loginForm(let form)):
            let outcome = try await submit(form, username: username, password: password, browser: &browser)
            guard let completion = outcome.completion else { throw UnexpectedOutcome("expected a sign-in, got \(outcome)") }
            answer = completion.redirect
        case .signIn(.redirect(let redirect, _)):
            answer = redirect
        default:
            throw UnexpectedOutcome("expected the sign-in, got \(started.outcome)")
        }
        return await deviceCallback(answer, flow: flow, browser: &browser)
    }

    /// `GET /oauth/device/callback` with what the sign-in answered.
    func deviceCallback(_ answer: ClientAnswer, flow: String?, browser: inout BrowserContext) async -> DeviceResult {
        let query = Self.query(answer)
        let parameters = try! Self.parameters(query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let result = await engine.deviceVerification.callback(parameters, flow: flow, browser: browser)
        if let sso = result.sso { browser.ssoToken = sso.value }
        return result
    }
}

extension DeviceResult {
    /// The last page's heading and whether the device is signed in, for expectations.
    var finished: DeviceFinished? {
        if case .finished(let finished, _) = outcome { return finished }
        return nil
    }
}
