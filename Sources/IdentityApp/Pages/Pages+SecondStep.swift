import Foundation
import Hummingbird
import IdentityCore
import Mustache
import OAuthEngine
import QRCode
import WebAuthn

extension Pages {
    /// The second-step page: the code form, the passkey button (with the broker's own script,
    /// inline under a nonce: no CDN), the authenticator-app QR code, or the recovery codes.
    func secondStep(_ model: SecondStepPageModel, status: HTTPResponse.Status = .ok) -> Response {
        let nonce = Secrets.randomToken(bytes: 16)
        var values: [String: Any] = [
            "title": model.heading, "heading": model.heading, "message": model.message, "error": model.error ?? false,
            "action": model.action, "csrfToken": model.csrfToken, "offersCode": model.offersCode,
            "inputMode": model.inputMode, "autocomplete": model.inputMode == "numeric" ? "one-time-code" : "off",
            "codeLabel": Self.codeLabel(model), "submitLabel": model.kind == .enrol ? "Confirm" : "Continue",
            "recoveryCodes": model.recoveryCodes, "hasRecoveryCodes": !model.recoveryCodes.isEmpty,
            "continueAction": model.continueAction ?? false, "stylesheet": model.stylesheet?.absoluteString ?? false,
        ]
        if let setup = model.totpSetup {
            do {
                let symbol = try QRCode.encode(setup.uri, correction: .medium)
                values["totpSetup"] = ["image": try symbol.pngDataURL(moduleSize: 5, quietZone: 4), "size": (symbol.size + 8) * 5,
                                       "secret": setup.secret]
            } catch {
                return errorPage(.wrapping(error, "QR code"))
            }
        }
        if let options = model.passkeyOptions, let action = model.passkeyAction {
            values["passkey"] = [
                "options": options, "action": action, "csrfToken": model.csrfToken, "creates": model.passkeyCreates ? "true" : "false",
                "page": model.action, "nonce": nonce, "script": PasskeysScript.source,
                "label": model.passkeyCreates ? "Create a passkey" : "Sign in with a passkey",
            ]
        }
        var response = Responses.html(secondStepTemplate.render(values), status: status)
        let styles = (["'self'", "'unsafe-inline'"] + (model.stylesheet.flatMap(Self.origin(of:)).map { [$0] } ?? [])).joined(separator: " ")
        // No `form-action`: browsers apply it to the redirects a form post is answered with, and
        // this page's last post is answered with the redirect to the app (another origin, or an
        // app's own scheme) — Chromium then stays on the page with the sign-in spent
        // (Tests/browser/mfa_test.py). The login page has none for the same reason.
        response.headers[.contentSecurityPolicy] = "default-src 'none'; style-src \(styles); img-src data:; "
            + "script-src 'nonce-\(nonce)'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
        return response
    }

    static func codeLabel(_ model: SecondStepPageModel) -> String {
        switch model.kind {
        case .challenge: "Answer"
        case .enrol: "Code from the authenticator app"
        case .verify, .recoveryCodes: model.passkeyOptions == nil || model.message.contains("6-digit") ? "Code" : "Recovery code"
        }
    }
}
