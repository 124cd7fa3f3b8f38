import Foundation
import Hummingbird
import OAuthEngine
import PageLanguages

/// The device pages (docs/device-grant.md).
extension Pages {
    func deviceCodeForm(_ form: DeviceCodeForm, status: HTTPResponse.Status) -> Response {
        let words = Self.words(nil)
        let values = Self.with(nil, words, [
            "title": words(form.heading), "heading": words(form.heading), "action": form.action, "csrfToken": form.csrfToken,
            "userCode": form.userCode, "error": form.error.map { words($0) } ?? false,
        ])
        return Responses.html(render(.deviceCodeForm, words, values), status: status)
    }

    func deviceConfirmation(_ confirmation: DeviceConfirmation) -> Response {
        let words = Self.words(confirmation.look)
        let values = Self.with(confirmation.look, words, [
            "title": words("Sign in on a device"), "appName": confirmation.appName, "serviceName": confirmation.serviceName,
            "userCode": confirmation.userCode, "userCodeValue": confirmation.userCode.replacingOccurrences(of: "-", with: ""),
            "hasAccess": !confirmation.access.isEmpty, "access": confirmation.access.map { words($0) },
            "action": confirmation.action, "csrfToken": confirmation.csrfToken,
        ])
        return Self.html(render(.deviceConfirmation, words, values), look: confirmation.look)
    }

    func deviceFinished(_ finished: DeviceFinished, status: HTTPResponse.Status) -> Response {
        let words = Self.words(finished.look)
        let values = Self.with(finished.look, words, [
            "title": words(finished.heading), "heading": words(finished.heading), "message": words(finished.message), "signedIn": finished.signedIn,
            "again": finished.again ?? false,
        ])
        return Self.html(render(.deviceFinished, words, values), look: finished.look, status: status)
    }
}
