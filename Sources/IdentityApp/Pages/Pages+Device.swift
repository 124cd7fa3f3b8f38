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
        let values: [String: Any] = [
            "title": "Sign in on a device", "appName": confirmation.appName, "serviceName": confirmation.serviceName,
            "userCode": confirmation.userCode, "userCodeValue": confirmation.userCode.replacingOccurrences(of: "-", with: ""),
            "hasAccess": !confirmation.access.isEmpty, "access": confirmation.access,
            "action": confirmation.action, "csrfToken": confirmation.csrfToken,
            "stylesheet": confirmation.stylesheet?.absoluteString ?? false,
            "extraStyle": "<style>button.secondary{background:#fff;color:#2456d3;border:1px solid #2456d3}</style>",
        ]
        let origin = confirmation.stylesheet.flatMap(Self.origin(of:)).map { [$0] } ?? []
        return Responses.html(deviceConfirmationTemplate.render(values), styleSources: origin)
    }

    func deviceFinished(_ finished: DeviceFinished, status: HTTPResponse.Status) -> Response {
        let values: [String: Any] = [
            "title": finished.heading, "heading": finished.heading, "message": finished.message, "signedIn": finished.signedIn,
            "again": finished.again ?? false, "stylesheet": finished.stylesheet?.absoluteString ?? false,
        ]
        let origin = finished.stylesheet.flatMap(Self.origin(of:)).map { [$0] } ?? []
        return Responses.html(deviceFinishedTemplate.render(values), status: status, styleSources: origin)
    }
}
