import Hummingbird
import IdentityCore
import Logging
import OAuthEngine

/// Every error a route throws as an RFC 6749-shaped JSON answer: OAuth errors as they are,
/// framework errors (404, 405, 413) with their status, anything unexpected as a logged 500 with
/// no detail.
enum ErrorAnswers {
    static func response(for error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as OAuthError:
            if error.status >= 500 {
                logger.error("request failed", metadata: ["error": "\(error.code)", "debug": "\(error.debug ?? error.errorDescription)"])
            } else if let debug = error.debug {
                logger.info("request refused", metadata: ["error": "\(error.code)", "debug": "\(debug)"])
            }
            return Responses.error(error)
        case let error as AuthorizationFailure:
            return Responses.error(error.error)
        case let error as HTTPResponseError:
            let status = error.status
            let message: String = switch status.code {
            case 413: "The request body is larger than 1 MiB."
            case 404: "Not found."
            case 405: "Method not allowed."
            default: status.reasonPhrase
            }
            let code: OAuthError.Code = status.code >= 500 ? .serverError : .invalidRequest
            return Responses.error(OAuthError(code, message, status: status.code))
        default:
            logger.error("unexpected failure", metadata: ["error": "\(error)"])
            return Responses.error(.wrapping(error, "request"))
        }
    }
}
