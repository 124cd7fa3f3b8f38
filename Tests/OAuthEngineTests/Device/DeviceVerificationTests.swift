import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import OAuthEngine
import OneTimePassword
import StoreContracts
import Testing

/// The device grant's browser side (RFC 8628 §3.3, §5.4; docs/device-grant.md): typed codes,
/// the confirmation naming the app, the sign-in, and who can finish it.
@Suite("DeviceVerification")
struct DeviceVerificationTests {
    @Test("the confirmation names the app, the auth service, the code and the access in words")
    func confirmation() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        var browser = BrowserContext()
        // Typed in lower case with spaces instead of the dash.
        let typed = started.userCode.lowercased().replacingOccurrences(of: "-", with: " ")
        let confirmation = try await fixture.deviceConfirmation(typed, browser: &browser)
        #expect(confirmation.appName == "Living Room TV" && confirmation.serviceName == "Test tv")
        #expect(confirmation.userCode == started.userCode)
        #expect(confirmation.access == ["Your name and profile", "Stay signed in until you remove it on your account page"])
    }

    @Test("the form: a malformed or unknown code says so and keeps what was typed; a form without its token is refused")
    func typedCodes() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let page = await fixture.engine.deviceVerification.page(userCode: nil, browser: BrowserContext())
        guard case .codeForm(let form, 200) = page.outcome, let binding = page.binding else { throw UnexpectedOutcome("\(page.outcome)") }
        let browser = BrowserContext(binding: binding, clientAddress: "192.0.2.1")
        for (typed, says) in [("AEIO-1234", "8 letters"), ("BCDF-GHJK", "not valid"), (String(repeating: "B", count: 500), "8 letters")] {
            let fields = try EngineFixture.parameters([("csrf_token", form.csrfToken), ("user_code", typed)])
            let answer = await fixture.engine.deviceVerification.submit(fields, browser: browser)
            guard case .codeForm(let again, 400) = answer.outcome else { throw UnexpectedOutcome("\(answer.outcome)") }
            #expect(again.error?.english.contains(says) == true)
            #expect(again.userCode == String(typed.prefix(32)))
        }
        let forged = try EngineFixture.parameters([("csrf_token", "forged"), ("user_code", "BCDF-GHJK")])
        let refused = await fixture.engine.deviceVerification.submit(forged, browser: browser)
        guard case .codeForm(let expired, 400) = refused.outcome else { throw UnexpectedOutcome("\(refused.outcome)") }
        #expect(expired.error?.english.contains("expired") == true)
    }

    @Test("guessing is held to userCodesPerMinute per address: the 11th try in a minute is 429, another address is not")
    func guessing() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        func attempt(from address: String) async -> Int? {
            let answer = await fixture.engine.deviceVerification.page(userCode: "BCDF-GHJK", browser: BrowserContext(clientAddress: address))
            if case .codeForm(_, let status) = answer.outcome { return status }
            return nil
        }
        for _ in 0..<10 { #expect(await attempt(from: "198.51.100.9") == 400) }
        #expect(await attempt(from: "198.51.100.9") == 429)
        #expect(await attempt(from: "198.51.100.10") == 400)
    }

    @Test("Cancel refuses the device: its poll answers access_denied, and the code cannot be used again")
    func cancel() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        var browser = BrowserContext()
        var flow: String?
        let confirmation = try await fixture.deviceConfirmation(started.userCode, browser: &browser)
        let cancelled = try await fixture.decide(confirmation, allow: false, browser: &browser, flow: &flow)
        #expect(cancelled.finished?.signedIn == false && flow == nil)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "access_denied")
        let again = await fixture.engine.deviceVerification.page(userCode: started.userCode, browser: browser)
        guard case .codeForm(_, 400) = again.outcome else { throw UnexpectedOutcome("\(again.outcome)") }
    }

    @Test("the confirmation's token is bound to the browser and the code: another browser's post is refused")
    func confirmationBinding() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        var mine = BrowserContext()
        let confirmation = try await fixture.deviceConfirmation(started.userCode, browser: &mine)
        var theirs = BrowserContext(binding: Secrets.randomToken())
        var flow: String?
        let refused = try await fixture.decide(confirmation, browser: &theirs, flow: &flow)
        guard case .errorPage = refused.outcome else { throw UnexpectedOutcome("\(refused.outcome)") }
        #expect(flow == nil)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "authorization_pending")
    }

    @Test("the sign-in comes back only in the browser that confirmed; its code is refused at the token endpoint")
    func callbackBinding() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        var browser = BrowserContext()
        var flow: String?
        let form = try await fixture.deviceLoginForm(started.userCode, browser: &browser, flow: &flow)
        let completion = try #require(try await fixture.submit(form, browser: &browser).completion)
        let code = try #require(EngineFixture.query(completion.redirect)["code"])
        // Stolen on the way: another browser (no flow cookie) gets nothing and changes nothing.
        var thief = BrowserContext()
        let stolen = await fixture.deviceCallback(completion.redirect, flow: nil, browser: &thief)
        guard case .errorPage = stolen.outcome else { throw UnexpectedOutcome("\(stolen.outcome)") }
        #expect(await EngineFixture.errorCode {
            try await fixture.exchange(code, redirectURI: "\(EngineFixture.issuer)/oauth/device/callback", verifier: nil)
        } == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "authorization_pending")
        // The rightful browser finishes it.
        let done = await fixture.deviceCallback(completion.redirect, flow: flow, browser: &browser)
        #expect(done.finished?.signedIn == true && done.clearFlow)
        #expect(try await fixture.poll(started.deviceCode).access_token.isEmpty == false)
    }

    @Test("a browser already signed in confirms and goes straight back: no password asked again")
    func signedInBrowser() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        var browser = BrowserContext()
        let first = try await fixture.startDevice()
        _ = try await fixture.approveDevice(first.userCode, browser: &browser)
        #expect(browser.ssoToken != nil)
        let second = try await fixture.startDevice()
        var flow: String?
        let confirmation = try await fixture.deviceConfirmation(second.userCode, browser: &browser)
        let started = try await fixture.decide(confirmation, browser: &browser, flow: &flow)
        guard case .signIn(.redirect(let answer, _)) = started.outcome else { throw UnexpectedOutcome("\(started.outcome)") }
        #expect(answer.redirectURI == "\(EngineFixture.issuer)/oauth/device/callback")
        let done = await fixture.deviceCallback(answer, flow: flow, browser: &browser)
        #expect(done.finished?.signedIn == true)
        #expect(try await fixture.poll(second.deviceCode).access_token.isEmpty == false)
    }

    @Test("a refused sign-in (access_denied) refuses the device; a callback with another state changes nothing")
    func refusedSignIn() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        var browser = BrowserContext()
        var flow: String?
        let form = try await fixture.deviceLoginForm(started.userCode, browser: &browser, flow: &flow)
        let callback = "\(EngineFixture.issuer)/oauth/device/callback"
        let forged = ClientAnswer(redirectURI: callback, mode: .query, [("error", "access_denied"), ("state", "not-the-flow's")])
        let ignored = await fixture.deviceCallback(forged, flow: flow, browser: &browser)
        guard case .errorPage = ignored.outcome else { throw UnexpectedOutcome("\(ignored.outcome)") }
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "authorization_pending")
        // The sign-in's own state (kept with its pending authorization) with access_denied.
        let pendingId = EngineFixture.lastPathComponent(form.action)
        let pending = try #require(try await fixture.storage.pending.pending(idHash: Secrets.hash(pendingId)))
        let refused = ClientAnswer(redirectURI: callback, mode: .query, [("error", "access_denied"), ("state", pending.state)])
        let page = await fixture.deviceCallback(refused, flow: flow, browser: &browser)
        #expect(page.finished?.signedIn == false && page.clearFlow)
        fixture.clock.advance(10)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "access_denied")
    }
}

/// The device page's sign-in is the normal one: a second factor where the auth service asks for it.
@Suite("DeviceVerification with a second factor")
struct DeviceSecondFactorTests {
    @Test("password, then the authenticator app's code, then the device gets tokens whose ID token says mfa")
    func secondFactor() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: [
            EngineFixture.service("tv") {
                $0.deviceGrant = DeviceGrantSettings()
                $0.mfa = MFASettings(mode: .required, methods: [.totp])
            },
        ])])
        let secret = TOTP.randomSecret()
        try await fixture.engine.enrolTOTP(secret, userId: "alice", clientId: EngineFixture.appKey)
        let started = try await fixture.startDevice()
        var browser = BrowserContext()
        var flow: String?
        let form = try await fixture.deviceLoginForm(started.userCode, browser: &browser, flow: &flow)
        let outcome = try await fixture.submit(form, browser: &browser)
        let page = try EngineFixture.require(outcome.secondStepPage, "the second-step page, got \(outcome)")
        let id = EngineFixture.lastPathComponent(page)
        guard case .page(let model, _) = try await fixture.engine.secondStep.page(id: id, browser: browser) else {
            throw UnexpectedOutcome("no second-step page")
        }
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "authorization_pending")
        let answered = try await fixture.engine.secondStep.submitCode(id: id, parameters: try EngineFixture.parameters([
            ("csrf_token", model.csrfToken), ("otp", fixture.engine.totpCode(secret))]), browser: browser)
        guard case .finished(.signedIn(let completion)) = answered else { throw UnexpectedOutcome("\(answered)") }
        let done = await fixture.deviceCallback(completion.redirect, flow: flow, browser: &browser)
        #expect(done.finished?.signedIn == true)
        fixture.clock.advance(6)
        let tokens = try await fixture.poll(started.deviceCode)
        guard case .array(let amr)? = EngineFixture.claims(tokens.id_token)["amr"] else { throw UnexpectedOutcome("no amr") }
        #expect(amr.compactMap(\.stringValue).contains("mfa"))
    }
}
