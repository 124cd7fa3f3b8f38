import Foundation
import Hummingbird
import OAuthEngine

/// The device pages (docs/device-grant.md).
extension Pages {
    func deviceCodeForm(_ form: DeviceCodeForm, status: HTTPResponse.Status) -> Response {
        let values: [String: Any] = [
            "title": form.heading, "heading": form.heading, "action": form.action, "csrfToken": form.csrfToken,
            "userCode": form.userCode, "error": form.error ?? false,
        ]
        return Responses.html(deviceCodeFormTemplate.render(values), status: status)
    }

    func deviceConfirmation(_ confirmation: DeviceConfirmation) -> Response {
        let values = Self.with(confirmation.look, [
            "title": "Sign in on a device", "appName": confirmation.appName, "serviceName": confirmation.serviceName,
            "userCode": confirmation.userCode, "userCodeValue": confirmation.userCode.replacingOccurrences(of: "-", with: ""),
            "hasAccess": !confirmation.access.isEmpty, "access": confirmation.access,
            "action": confirmation.action, "csrfToken": confirmation.csrfToken,
        ])
        return Self.html(deviceConfirmationTemplate.render(values), look: confirmation.look)
    }

    func deviceFinished(_ finished: DeviceFinished, status: HTTPResponse.Status) -> Response {
        let values = Self.with(finished.look, [
            "title": finished.heading, "heading": finished.heading, "message": finished.message, "signedIn": finished.signedIn,
            "again": finished.again ?? false,
        ])
        return Self.html(deviceFinishedTemplate.render(values), look: finished.look, status: status)
    }
}
