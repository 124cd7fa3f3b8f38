import Hummingbird
import IdentityCore
import Logging
import OAuthEngine

/// Turns every error into an RFC 6749-shaped JSON answer: OAuth errors as they are, framework
/// errors (404, 405, 413) with their status, anything unexpected as a logged 500 with no detail.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as OAuthError {
            if error.status >= 500 {
                context.logger.error("request failed", metadata: ["error": "\(error.code)", "debug": "\(error.debug ?? error.errorDescription)"])
            } else if let debug = error.debug {
                context.logger.info("request refused", metadata: ["error": "\(error.code)", "debug": "\(debug)"])
            }
            return Responses.error(error)
        } catch let error as AuthorizationFailure {
            return Responses.error(error.error)
        } catch let error as HTTPResponseError {
            let status = error.status
            let message: String = switch status.code {
            case 413: "The request body is larger than 1 MiB."
            case 404: "Not found."
            case 405: "Method not allowed."
            default: status.reasonPhrase
            }
            let code: OAuthError.Code = status.code >= 500 ? .serverError : .invalidRequest
            return Responses.error(OAuthError(code, message, status: status.code))
        } catch {
            context.logger.error("unexpected failure", metadata: ["error": "\(error)"])
            return Responses.error(.wrapping(error, "request"))
        }
    }
}

/// Refuses declared bodies over the limit before reading them (chunked ones are limited while read).
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let limit: Int
    /// The data-link gateway streams larger bodies and applies its own limit.
    let exemptPrefix: String

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        if !request.uri.path.hasPrefix(exemptPrefix), let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            return Responses.error(OAuthError(.invalidRequest, "The request body is larger than 1 MiB.", status: 413))
        }
        return try await next(request, context)
    }
}

/// TRACE and TRACK are refused everywhere with 405 (docs/security.md, rule 8): they would echo the
/// request, credentials and cookies included, back to whoever sent it.
struct RefusedMethodsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue.uppercased()
        guard method == "TRACE" || method == "TRACK" else { return try await next(request, context) }
        var response = Responses.error(OAuthError(.invalidRequest, "\(method) is not supported.", status: 405))
        response.headers[.allow] = "GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS"
        return response
    }
}
