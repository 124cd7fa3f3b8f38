import Hummingbird
import IdentityCore
import Logging
import OAuthEngine

/// Every error a route throws as an RFC 6749-shaped JSON answer: OAuth errors as they are,
/// framework errors (404, 405, 413) with their status, anything unexpected as a logged 500 with
/// no detail.
enum ErrorAnswers {
    /// `pages`: when given, a browser asking for a page (`GET` with `Accept: text/html`) that no
    /// route serves gets the "Page not found" page rather than JSON.
    static func response(for error: any Error, request: Request? = nil, pages: Pages? = nil, logger: Logger) -> Response {
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
            let answer = OAuthError(code, message, status: status.code)
            if status.code == 404, let pages, let request, wantsPage(request) {
                return pages.errorPage(OAuthError(.invalidRequest, "There is no page at this address.", status: 404), topic: .notFound)
            }
            return Responses.error(answer)
        default:
            logger.error("unexpected failure", metadata: ["error": "\(error)"])
            return Responses.error(.wrapping(error, "request"))
        }
    }

    /// A browser navigating: `GET` or `HEAD` whose `Accept` names `text/html` (API clients send
    /// `application/json` or nothing).
    static func wantsPage(_ request: Request) -> Bool {
        guard request.method == .get || request.method == .head, let accept = request.headers[.accept] else { return false }
        return accept.lowercased().contains("text/html")
    }
}
