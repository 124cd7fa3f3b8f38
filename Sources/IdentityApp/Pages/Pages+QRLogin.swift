import Foundation
import Hummingbird
import IdentityCore
import Mustache
import OAuthEngine
import PageLanguages
import QRCode
import StoreContracts

extension Pages {
    /// The login page's QR view: the code as a PNG, scanned by the app; the page long-polls.
    func qrLogin(_ display: QRLoginDisplay) -> Response {
        let image: String
        let size: Int
        do {
            let symbol = try QRCode.encode(display.payload, correction: .medium)
            image = try symbol.pngDataURL(moduleSize: 6, quietZone: 4)
            size = (symbol.size + 8) * 6
        } catch {
            return errorPage(.wrapping(error, "QR code"))
        }
        let nonce = Secrets.randomToken(bytes: 16)
        let words = Self.words(display.look)
        let values = Self.with(display.look, words, [
            "title": words(display.heading), "heading": words(display.heading), "image": image, "size": size, "ttl": display.ttl,
            "statusURL": display.statusURL, "finishURL": display.finishURL, "restartURL": display.restartURL,
            "nonce": nonce, "passwordURL": display.passwordURL ?? false,
        ])
        return Self.html(render(.qrLogin, words, values), look: display.look, scriptNonce: nonce)
    }

    /// The app refused: the way back carries `access_denied`, a link or (`form_post`) a form.
    func qrRefused(back: ClientAnswer) -> Response {
        let words = Self.words(nil)
        var values = Self.with(nil, words, ["title": words("Sign-in refused")])
        if back.mode == .formPost {
            values["post"] = ["action": back.redirectURI, "fields": back.fields.map { ["name": $0.name, "value": $0.value] }] as [String: Any]
        } else {
            values["back"] = back.url
        }
        return Responses.html(render(.qrRefused, words, values), status: .forbidden)
    }

    func qrExpired(restart: String) -> Response {
        let words = Self.words(nil)
        return Responses.html(render(.qrExpired, words, Self.with(nil, words, ["title": words("The code has expired"), "restart": restart])),
                              status: .gone)
    }

    func qrScanHint() -> Response {
        let words = Self.words(nil)
        return Responses.html(render(.qrScanHint, words, Self.with(nil, words, ["title": words("Scan with the app")])))
    }
}
