import Foundation
import Hummingbird
import IdentityCore
import Mustache
import OAuthEngine
import PageLanguages
import QRCode
import WebAuthn

/// The account pages (docs/account.md). Served like every hosted page: `no-store`,
/// `frame-ancestors 'none'`, nothing from elsewhere but the auth service's own stylesheet.
extension Pages {
    /// The account page. `base` is the issuer (the forms post to `<issuer>/account/...`).
    func account(_ model: AccountPageModel, base: String, status: HTTPResponse.Status = .ok) -> Response {
        func action(_ path: String) -> String { Self.accountURL(base, path, model.clientId) }
        let rows: (Date) -> String = Self.time
        let words = Self.words(model.look)
        var values = common(words(model.heading), model.look, words)
        values["heading"] = words(model.heading)
        values["csrfToken"] = model.csrfToken
        values["notice"] = model.notice.map { words($0) } ?? false
        values["error"] = model.error.map { words($0) } ?? false
        values["recoveryCodes"] = model.recoveryCodes
        values["hasRecoveryCodes"] = !model.recoveryCodes.isEmpty
        values["userId"] = model.user.id
        values["userName"] = model.user.name ?? false
        values["userEmail"] = model.user.email ?? false
        values["groups"] = model.user.groups.isEmpty ? false : model.user.groups.joined(separator: ", ")
        values["browsers"] = model.browsers.map { row -> [String: Any] in
            ["id": row.id, "label": row.os.map { PageText.fill(words("{0} on {1}"), [row.browser, $0]) } ?? row.browser,
             "address": row.address ?? false, "signedIn": rows(row.signedIn), "lastUsed": row.lastUsed.map(rows) ?? false,
             "current": row.isCurrent]
        }
        values["apps"] = model.apps.map { row -> [String: Any] in
            ["clientId": row.clientId, "name": row.name, "signedIn": rows(row.signedIn), "lastUsed": row.lastUsed.map(rows) ?? false,
             "offline": words(row.offlineAccess ? "yes" : "no")]
        }
        values["sharedSignIns"] = model.sharedSignIns.map { row -> [String: Any] in
            ["id": row.id, "apps": row.apps.joined(separator: ", "), "signedIn": rows(row.signedIn), "lastUsed": row.lastUsed.map(rows) ?? false]
        }
        values["hasSharedSignIns"] = !model.sharedSignIns.isEmpty
        values["consents"] = model.consents.map { row -> [String: Any] in
            ["clientId": row.clientId, "name": row.name, "allowed": row.allowed.map { words($0) }.joined(separator: "; "), "grantedAt": rows(row.grantedAt),
             "updatedAt": rows(row.updatedAt), "changed": row.updatedAt != row.grantedAt]
        }
        values["hasConsents"] = !model.consents.isEmpty
        values["devices"] = model.devices.map { row -> [String: Any] in
            ["clientId": row.clientId, "softwareId": row.softwareId, "deviceType": row.deviceType, "registered": rows(row.registered),
             "lastUsed": row.lastUsed.map(rows) ?? false]
        }
        if let factors = model.factors {
            values["factors"] = [
                "changesNeedSignIn": factors.changesNeedSignIn,
                "authenticatorSince": factors.authenticatorSince.map(rows) ?? false,
                "authenticatorLastUsed": factors.authenticatorLastUsed.map(rows) ?? false,
                "offersAuthenticator": factors.offersAuthenticator, "offersPasskeys": factors.offersPasskeys,
                "passkeys": factors.passkeys.enumerated().map { index, row -> [String: Any] in
                    ["id": row.id, "name": row.name, "added": rows(row.added), "lastUsed": row.lastUsed.map(rows) ?? false, "index": index]
                },
                "recoveryCodesLeft": factors.recoveryCodesLeft, "hasFactor": factors.hasFactor,
                // Removing the only factor left asks the person to confirm (a required tick box).
                "lastFactor": (factors.authenticatorSince == nil ? 0 : 1) + factors.passkeys.count == 1,
            ] as [String: Any]
        } else {
            values["factors"] = false
        }
        for (key, path) in [("signOutBrowserAction", "/browsers/sign-out"), ("removeAppAction", "/apps/remove"), ("removeConsentAction", "/consents/remove"), ("signOutSharedAction", "/shared-sign-ins/sign-out"),
                            ("removeDeviceAction", "/devices/remove"), ("removeAuthenticatorAction", "/authenticator/remove"),
                            ("setupAuthenticatorLink", "/authenticator"), ("renamePasskeyAction", "/passkeys/rename"),
                            ("removePasskeyAction", "/passkeys/remove"), ("addPasskeyLink", "/passkeys/new"),
                            ("renewRecoveryCodesAction", "/recovery-codes"), ("signOutEverywhereAction", "/sign-out-everywhere")] {
            values[key] = action(path)
        }
        return accountHTML(render(.account, words, values), status: status, look: model.look)
    }

    /// Setting up an authenticator app: the key as a QR code (rendered here) and as text.
    func accountAuthenticator(_ model: AuthenticatorSetupModel, base: String, status: HTTPResponse.Status = .ok) -> Response {
        let words = Self.words(model.look)
        var values = common(words("Set up an authenticator app"), model.look, words)
        do {
            let symbol = try QRCode.encode(model.uri, correction: .medium)
            values["image"] = try symbol.pngDataURL(moduleSize: 5, quietZone: 4)
            values["size"] = (symbol.size + 8) * 5
        } catch {
            return errorPage(.wrapping(error, "QR code"))
        }
        values["secret"] = model.secret
        values["setup"] = model.sealedSetup
        values["csrfToken"] = model.csrfToken
        values["error"] = model.error.map { words($0) } ?? false
        values["action"] = Self.accountURL(base, "/authenticator", model.clientId)
        values["back"] = Self.accountURL(base, "", model.clientId)
        return accountHTML(render(.accountAuthenticator, words, values), status: status, look: model.look)
    }

    /// Adding a passkey: the broker's own script (inline under a nonce) runs the ceremony.
    func accountPasskey(_ model: PasskeySetupModel, base: String) -> Response {
        let nonce = Secrets.randomToken(bytes: 16)
        let words = Self.words(model.look)
        var values = common(words("Add a passkey"), model.look, words)
        values["options"] = model.options
        values["csrfToken"] = model.csrfToken
        values["action"] = Self.accountURL(base, "/passkeys", model.clientId)
        values["back"] = Self.accountURL(base, "", model.clientId)
        values["nonce"] = nonce
        values["script"] = PasskeysScript.source
        return accountHTML(render(.accountPasskey, words, values), status: .ok, look: model.look, scriptNonce: nonce)
    }

    /// This browser's sign-in ended (signed out here, or everywhere).
    func accountSignedOut(message: PageText, signInAgain: String, look: PageLook) -> Response {
        let words = Self.words(look)
        var values = common(words("Signed out"), look, words)
        values["message"] = words(message)
        values["again"] = signInAgain
        values["wide"] = false
        return accountHTML(render(.accountSignedOut, words, values), status: .ok, look: look)
    }

    private func common(_ title: String, _ look: PageLook, _ words: PageWords) -> [String: Any] {
        Self.with(look, words, ["title": title, "extraStyle": PageTemplates.accountStyle, "wide": true])
    }

    /// The HTML answer with the hosted pages' headers; a passkey page may run its nonce'd script.
    private func accountHTML(_ text: String, status: HTTPResponse.Status, look: PageLook, scriptNonce: String? = nil) -> Response {
        Self.html(text, look: look, status: status, scriptNonce: scriptNonce, formActionSelf: true)
    }

    static func accountURL(_ base: String, _ path: String, _ clientId: String) -> String {
        RedirectURL.build("\(base)/account\(path)", [("client_id", clientId)])
    }

    /// A moment as the page shows it: `<time>` with the instant, read as UTC to the minute.
    static func time(_ date: Date) -> String {
        let instant = ISO8601DateFormatter.string(from: date, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withInternetDateTime])
        let shown = instant.prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
        return "<time datetime=\"\(instant)\">\(shown)</time>"
    }
}
