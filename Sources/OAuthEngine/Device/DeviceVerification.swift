import Foundation
import IdentityCore
import PageLanguages
import StoreContracts

/// The browser side of the device grant (docs/device-grant.md): `/oauth/device`, where a person
/// types the code their device shows (or arrives with it from the device's QR code), confirms the
/// app and the code, signs in as on any login page — any connector, second factor included — and
/// the device's next poll gets the tokens.
///
/// Guessing codes is held to `server.rateLimits.userCodesPerMinute` per address. The forms carry
/// tokens bound to the browser's binding cookie (and the confirmation's to the code), and the
/// sign-in runs as the broker's own (``OwnSignIn``): its code comes back to
/// `/oauth/device/callback` in the browser that confirmed, or to nobody.
public struct DeviceVerification: Sendable {
    let context: EngineContext
    let devices: any DeviceAuthorizationStore
    let clients: ClientRegistry
    let rateLimiter: RateLimiter
    let authorize: AuthorizeEndpoint
    let sso: SSOSessions
    let own: OwnSignIn

    /// `GET /oauth/device`: the form, or — with `user_code` from the device's QR code — straight to
    /// the confirmation.
    public func page(userCode typed: String?, browser: BrowserContext) async -> DeviceResult {
        let binding = browser.binding ?? Secrets.randomToken()
        guard let typed, !typed.isEmpty else { return DeviceResult(.codeForm(form(binding: binding), status: 200), binding: binding) }
        return await lookUp(typed, binding: binding, clientAddress: browser.clientAddress)
    }

    /// `POST /oauth/device`: the typed code.
    public func submit(_ form: OAuthParameters, browser: BrowserContext) async -> DeviceResult {
        guard let binding = browser.binding, let token = form["csrf_token"],
              Secrets.constantTimeEquals(token, Self.formToken(binding: binding)) else {
            let binding = browser.binding ?? Secrets.randomToken()
            return DeviceResult(.codeForm(self.form(binding: binding, typed: form["user_code"],
                                                    error: "The form expired. Type the code again."), status: 400), binding: binding)
        }
        return await lookUp(form["user_code"] ?? "", binding: binding, clientAddress: browser.clientAddress)
    }

    /// `POST /oauth/device/confirm`: Continue starts the sign-in, Cancel refuses the device.
    public func decide(_ form: OAuthParameters, browser: BrowserContext) async -> DeviceResult {
        let expired = DeviceResult(.errorPage(.invalidRequest("This page has expired. Type the code from your device again.")))
        guard let binding = browser.binding, let code = UserCode.normalized(form["user_code"]), let token = form["csrf_token"],
              Secrets.constantTimeEquals(token, Self.confirmToken(userCodeHash: UserCode.hash(code), binding: binding)) else {
            return expired
        }
        do {
            guard let device = try await devices.deviceAuthorization(userCodeHash: UserCode.hash(code)),
                  device.state == .pending, context.clock.now() < device.expiresAt,
                  let client = try await clients.resolve(device.clientId) else {
                return DeviceResult(.finished(notUsable, status: 400))
            }
            guard form["decision"] == "allow" else {
                _ = try await devices.settleDeviceAuthorization(deviceCodeHash: device.deviceCodeHash, .denied, at: context.clock.now())
                context.audit.record(AuditEvent(.deviceDenied, ["client": client.clientId, "address": browser.clientAddress]))
                return DeviceResult(.finished(DeviceFinished(heading: "Device not signed in", message:
                    "You cancelled. The device was not signed in; you can close this page.", signedIn: false, look: client.look, again: codePage), status: 200))
            }
            return try await startSignIn(device, client: client, browser: browser, binding: binding)
        } catch {
            return DeviceResult(.errorPage(.wrapping(error, "device confirmation")))
        }
    }

    /// Finds the code a person typed: the confirmation, or the form again saying what is wrong.
    private func lookUp(_ typed: String, binding: String, clientAddress: String?) async -> DeviceResult {
        do {
            try await rateLimiter.admit(.userCode, clientAddress: clientAddress)
            guard let code = UserCode.normalized(typed) else {
                return DeviceResult(.codeForm(form(binding: binding, typed: typed, error:
                    "That is not a code from a device: it has 8 letters, like BCDF-GHJK. Check the code on your device and type it again."), status: 400), binding: binding)
            }
            guard let device = try await devices.deviceAuthorization(userCodeHash: UserCode.hash(code)),
                  device.state == .pending, context.clock.now() < device.expiresAt,
                  let client = try await clients.resolve(device.clientId) else {
                return DeviceResult(.codeForm(form(binding: binding, typed: typed, error:
                    "This code is not valid: it may have expired or been used already. Check the code on your device, or start again there."), status: 400), binding: binding)
            }
            let confirmation = DeviceConfirmation(
                appName: client.environment.name ?? client.appKey, serviceName: client.service.name ?? client.service.id,
                userCode: UserCode.display(code), access: Scopes.inWords(device.scope, staysSignedIn: client.service.refresh),
                action: "\(context.issuer)/oauth/device/confirm",
                csrfToken: Self.confirmToken(userCodeHash: device.userCodeHash, binding: binding), look: client.look)
            return DeviceResult(.confirm(confirmation), binding: binding)
        } catch let error as OAuthError where error.status == 429 {
            var refused = form(binding: binding, typed: typed, error:
                "Too many codes were tried from your network. Wait a minute, then type the code again.")
            refused.retryAfter = error.retryAfter
            return DeviceResult(.codeForm(refused, status: 429), binding: binding)
        } catch {
            return DeviceResult(.errorPage(.wrapping(error, "device code lookup")), binding: binding)
        }
    }

    func form(binding: String, typed: String? = nil, error: PageText? = nil) -> DeviceCodeForm {
        DeviceCodeForm(heading: "Sign in on a device", action: codePage,
                       csrfToken: Self.formToken(binding: binding), userCode: String((typed ?? "").prefix(32)), error: error)
    }

    var codePage: String { DeviceAuthorizationEndpoint.verificationURI(issuer: context.issuer) }

    var notUsable: DeviceFinished {
        DeviceFinished(heading: "Code not valid", message: "This code has expired or was used already. Start again on your device.",
                       signedIn: false, look: PageLook(), again: codePage)
    }

    static func formToken(binding: String) -> String { Secrets.hash("device-code\u{0}\(binding)") }

    static func confirmToken(userCodeHash: String, binding: String) -> String {
        Secrets.hash("device-confirm\u{0}\(userCodeHash)\u{0}\(binding)")
    }
}
