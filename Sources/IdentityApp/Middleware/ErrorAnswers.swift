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

/// Requests refused before any route sees them.
enum RequestRefusals {
    /// TRACE and TRACK are refused everywhere with 405 (docs/security.md, rule 8): they would echo
    /// the request, credentials and cookies included, back to whoever sent it.
    static func refusedMethod(_ request: Request) -> Response? {
        let method = request.method.rawValue.uppercased()
        guard method == "TRACE" || method == "TRACK" else { return nil }
        var response = Responses.error(OAuthError(.invalidRequest, "\(method) is not supported.", status: 405))
        response.headers[.allow] = "GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS"
        return response
    }

    /// A declared body over `limit` is refused before it is read (chunked ones are limited while
    /// read); the data-link gateway (`exemptPrefix`) streams larger bodies under its own limit.
    static func oversizedBody(_ request: Request, limit: Int, exemptPrefix: String) -> Response? {
        guard !request.uri.path.hasPrefix(exemptPrefix), let length = request.headers[.contentLength].flatMap(Int.init),
              length > limit else { return nil }
        return Responses.error(OAuthError(.invalidRequest, "The request body is larger than 1 MiB.", status: 413))
    }
}
