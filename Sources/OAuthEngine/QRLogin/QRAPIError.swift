import Foundation
import IdentityCore

/// An answer of the QR-login mobile API other than success, with the exact JSON body apps
/// written for Blitz Identity Provider expect (docs/qr-login.md, "Errors").
public struct QRAPIError: Error, Sendable, Equatable {
    public let status: Int
    public let body: [String: JSONValue]

    init(_ status: Int, _ body: [String: String], params: Bool = false) {
        self.status = status
        var values = body.mapValues { JSONValue.string($0) }
        if params { values["params"] = .object([:]) }
        self.body = values
    }

    /// 401: no token, a bad, expired or revoked one, or one without the QR scope.
    static func badToken(_ desc: String) -> QRAPIError {
        QRAPIError(401, ["type": "security_error", "error": "bad_access_token", "desc": desc])
    }

    static let expiredToken = badToken("expired_access_token")
    static let invalidToken = badToken("invalid_access_token")
    static let insufficientScope = badToken("insufficient_scope")
    /// 403: a token of another auth service than the sign-in's.
    static let wrongAuthService = QRAPIError(403, ["type": "security_error", "error": "bad_access_token", "desc": "wrong_auth_service"])
    /// 404: no such code (never issued, or collected a day after it expired).
    static let notFound = QRAPIError(404, ["error": "qr_session_not_found", "desc": "No QR sign-in has this code."], params: true)

    static let expired = QRAPIError(410, ["type": "process_error", "error": "qr_session_expired",
                                          "desc": "The QR code has expired; the browser shows a new one on request."])
    static let completed = QRAPIError(409, ["type": "process_error", "error": "qr_session_already_completed",
                                            "desc": "This QR sign-in was already confirmed or refused."])
    static func invalidRequest(_ desc: String) -> QRAPIError {
        QRAPIError(400, ["type": "process_error", "error": "invalid_request", "desc": desc])
    }

    static let unavailable = QRAPIError(503, ["type": "process_error", "error": "temporarily_unavailable",
                                              "desc": "The service is temporarily unavailable; try again."])
}
