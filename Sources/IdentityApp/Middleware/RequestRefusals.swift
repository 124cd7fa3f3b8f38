import Hummingbird
import IdentityCore
import OAuthEngine

/// Requests refused before any route sees them.
enum RequestRefusals {
    /// TRACE and TRACK are refused everywhere with 405 (docs/security.md, rule 8): they would echo
    /// the request, credentials and cookies included, back to whoever sent it.
    static func refusedMethod(_ request: Request) -> Response? {
        // Both are five letters: every other method is let through without an uppercased copy.
        guard request.method.rawValue.utf8.count == 5 else { return nil }
        let method = request.method.rawValue.uppercased()
        guard method == "TRACE" || method == "TRACK" else { return nil }
        var response = Responses.error(OAuthError(.invalidRequest, "\(method) is not supported.", status: 405))
        response.headers[.allow] = "GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS"
        return response
    }

    /// A declared body over `limit` is refused before it is read (chunked ones are limited while
    /// read); the data-link gateway (`exemptPrefix`) streams larger bodies under its own limit.
    static func oversizedBody(_ request: Request, limit: Int, exemptPrefix: String) -> Response? {
        guard !request.uri.path.hasPrefix(exemptPrefix), let length = request.headers.value(.contentLength).flatMap(Int.init),
              length > limit else { return nil }
        return Responses.error(OAuthError(.invalidRequest, "The request body is larger than 1 MiB.", status: 413))
    }
}
