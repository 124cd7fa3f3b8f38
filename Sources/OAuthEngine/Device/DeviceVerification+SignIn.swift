import Foundation
import IdentityCore
import PageLanguages
import StoreContracts

extension DeviceVerification {
    /// How long a started sign-in can come back (at most the device code's own lifetime).
    public static let flowLifetime: TimeInterval = 900

    /// Where the sign-in's code comes back.
    public static func callbackURI(issuer: String) -> String { "\(issuer)/oauth/device/callback" }

    /// Continue: the person signs in for the device's client and scope, as the broker's own
    /// sign-in (``OwnSignIn``): the login form, the identity source, the second step, or — with a
    /// browser already signed in — straight back to the callback.
    func startSignIn(_ device: DeviceAuthorization, client: ResolvedClient, browser: BrowserContext,
                     binding: String) async throws -> DeviceResult {
        let verifier = Secrets.randomToken()
        let state = Secrets.randomToken(bytes: 16)
        let request = AuthorizationRequest(
            client: client, redirectURI: Self.callbackURI(issuer: context.issuer), scope: device.scope, state: state, nonce: nil,
            codeChallenge: PKCE.challenge(for: verifier), prompt: nil, loginHint: nil, resources: device.resources, maxAge: nil,
            claims: nil, online: true, issuer: context.issuer)
        let expiresAt = min(device.expiresAt, context.clock.now().addingTimeInterval(Self.flowLifetime))
        let flow = DeviceFlow(verifier: verifier, state: state, deviceCodeHash: device.deviceCodeHash, clientId: client.clientId,
                              expiresAt: expiresAt)
        let sealed = try own.seal(flow, VaultBindings.deviceFlow())
        var signingIn = browser
        signingIn.binding = binding
        signingIn.webSSOValue = nil
        let result = await authorize.proceed(request, parameters: OAuthParameters(), browser: signingIn)
        return DeviceResult(.signIn(result.outcome), binding: result.binding ?? binding, flow: sealed)
    }

    /// `GET /oauth/device/callback`: the sign-in came back. Only in the browser that confirmed
    /// (its `idc_device` cookie holds state and verifier): the code is redeemed here, the device
    /// authorization is approved for the session, and the browser keeps the sign-in (SSO).
    ///
    /// A callback whose state is not this browser's flow changes nothing; one that matched ends
    /// the flow whatever its outcome, and a refused sign-in (`access_denied`) refuses the device.
    public func callback(_ parameters: OAuthParameters, flow sealed: String?, browser: BrowserContext) async -> DeviceResult {
        let flow = own.open(sealed, as: DeviceFlow.self, VaultBindings.deviceFlow()).flatMap { context.clock.now() < $0.expiresAt ? $0 : nil }
        guard let flow, let state = parameters["state"], Secrets.constantTimeEquals(state, flow.state) else {
            return DeviceResult(.errorPage(.invalidRequest("This device sign-in has expired or was started in another browser. "
                + "Type the code from your device again.")), clearFlow: sealed != nil && flow == nil)
        }
        var result: DeviceResult
        do {
            result = try await finish(parameters, flow: flow, browser: browser)
        } catch {
            result = DeviceResult(.errorPage(.wrapping(error, "device sign-in")))
        }
        result.clearFlow = true
        return result
    }

    private func finish(_ parameters: OAuthParameters, flow: DeviceFlow, browser: BrowserContext) async throws -> DeviceResult {
        let now = context.clock.now()
        let client = try await clients.resolve(flow.clientId)
        let look = client?.look ?? PageLook()
        if let error = parameters["error"] {
            if error == OAuthError.Code.accessDenied.rawValue {
                _ = try await devices.settleDeviceAuthorization(deviceCodeHash: flow.deviceCodeHash, .denied, at: now)
                context.audit.record(AuditEvent(.deviceDenied, ["client": flow.clientId, "address": browser.clientAddress]))
            }
            let description = parameters["error_description"] ?? "The sign-in did not complete."
            return DeviceResult(.finished(DeviceFinished(heading: "Device not signed in", message: PageText(message: String(description.prefix(300))),
                                                         signedIn: false, look: look, again: codePage), status: 400))
        }
        guard let client, let device = try await devices.deviceAuthorization(deviceCodeHash: flow.deviceCodeHash),
              device.state == .pending, now < device.expiresAt else {
            return DeviceResult(.finished(notUsable, status: 400))
        }
        let session = try await own.redeem(parameters["code"], redirectURI: Self.callbackURI(issuer: context.issuer),
                                           verifier: flow.verifier, clientId: flow.clientId, purpose: "device",
                                           refused: .invalidRequest("The sign-in could not be completed. Type the code from your device again."))
        // The browser keeps the sign-in either way: a code settled meanwhile leaves no session behind unused.
        let cookie = await sso.remember(session, client: client, ssoToken: browser.ssoToken)
        guard try await devices.settleDeviceAuthorization(deviceCodeHash: flow.deviceCodeHash,
                                                          .approved(sessionId: session.id, subject: session.subject), at: now) else {
            return DeviceResult(.finished(notUsable, status: 400), sso: cookie)
        }
        context.audit.record(AuditEvent(.deviceApproved, ["client": client.clientId, "session": session.id, "subject": session.subject,
                                                          "address": browser.clientAddress]))
        let app = client.environment.name ?? client.appKey
        return DeviceResult(.finished(DeviceFinished(heading: "Device signed in", message:
            "You are signed in to \(app) on your device as \(session.userId). You can close this page and return to the device.", signedIn: true, look: look, again: nil),
                                      status: 200), sso: cookie)
    }
}
