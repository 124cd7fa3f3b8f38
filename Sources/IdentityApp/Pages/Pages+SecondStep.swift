import Foundation
import Hummingbird
import IdentityCore
import Mustache
import OAuthEngine
import PageLanguages
import QRCode
import WebAuthn

extension Pages {
    /// The second-step page: the code form, the passkey button (with the broker's own script,
    /// inline under a nonce: no CDN), the authenticator-app QR code, or the recovery codes.
    func secondStep(_ model: SecondStepPageModel, status: HTTPResponse.Status = .ok) -> Response {
        let nonce = Secrets.randomToken(bytes: 16)
        let words = Self.words(model.look)
        var values: [String: Any] = [
            "title": words(model.heading), "heading": words(model.heading), "message": words(model.message),
            "error": model.error.map { words($0) } ?? false,
            "action": model.action, "csrfToken": model.csrfToken, "offersCode": model.offersCode,
            "inputMode": model.inputMode, "autocomplete": model.inputMode == "numeric" ? "one-time-code" : "off",
            "codeLabel": words(Self.codeLabel(model)), "submitLabel": words(model.kind == .enrol ? "Confirm" : "Continue"),
            "recoveryCodes": model.recoveryCodes, "hasRecoveryCodes": !model.recoveryCodes.isEmpty,
            "continueAction": model.continueAction ?? false,
            "account": model.account ?? false, "nonce": nonce, "restartAction": model.restartAction ?? false,
            // One primary button: with a code form on the page, the passkey button is the other way.
            "passkeyClass": model.offersCode ? "secondary" : "",
            "recoveryDownload": Self.textDownload(model.recoveryCodes.joined(separator: "\n") + "\n"),
        ]
        if let setup = model.totpSetup {
            do {
                let symbol = try QRCode.encode(setup.uri, correction: .medium)
                values["totpSetup"] = ["image": try symbol.pngDataURL(moduleSize: 5, quietZone: 4), "size": (symbol.size + 8) * 5,
                                       "secret": setup.secret, "uri": setup.uri]
            } catch {
                return errorPage(.wrapping(error, "QR code"))
            }
        }
        if let options = model.passkeyOptions, let action = model.passkeyAction {
            values["passkey"] = [
                "options": options, "action": action, "csrfToken": model.csrfToken, "creates": model.passkeyCreates ? "true" : "false",
                "page": model.action, "nonce": nonce, "script": PasskeysScript.source,
                "label": words(model.passkeyCreates ? "Create a passkey" : "Sign in with a passkey"),
            ]
        }
        return Self.html(render(.secondStep, words, Self.with(model.look, words, values)), look: model.look, status: status, scriptNonce: nonce)
    }

    /// A `data:` URL of `text` as a plain-text file, for a download link.
    static func textDownload(_ text: String) -> String {
        "data:text/plain;charset=utf-8," + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    /// The code field's label (a catalog message).
    static func codeLabel(_ model: SecondStepPageModel) -> String {
        switch model.kind {
        case .challenge: "Answer"
        case .enrol: "Code from the authenticator app"
        case .verify, .recoveryCodes: model.passkeyOptions == nil || model.message.format.contains("6-digit") ? "Code" : "Recovery code"
        }
    }
}
