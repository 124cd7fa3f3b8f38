import HTTPTypes
import Hummingbird
import IdentityCore
import OAuthEngine

/// What every controller needs.
struct AppServices: Sendable {
    let engine: BrokerEngine
    let pages: Pages
    /// Cookies get `Secure` (and the `__Host-` prefix) when the issuer is https.
    var secureCookies: Bool { engine.issuer.lowercased().hasPrefix("https://") }
    var cookies: BrowserCookies { BrowserCookies(secure: secureCookies) }
    var issuer: String { engine.issuer }

    /// The client's address for throttling: the TCP peer, or, when the peer is one of
    /// `server.trustedProxies`, the first untrusted hop of `X-Forwarded-For`.
    func clientAddress(_ request: Request, _ context: AppRequestContext) -> String? {
        let trusted = engine.state.config.server.trustedProxies
        guard !trusted.isEmpty else { return context.remoteAddress }
        return ClientAddress.resolve(peer: context.remoteAddress, forwardedFor: request.headers[values: .xForwardedFor],
                                     trusted: trusted)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// Registers `routes` bare and under `/v1`, `/v2`, `/v3` (docs/protocol.md, "The front door": the
/// Kinvey SDKs use all of them).
func registerVersioned(_ router: Router<AppRequestContext>, _ routes: (RouterGroup<AppRequestContext>) -> Void) {
    routes(router.group(""))
    for version in ["v1", "v2", "v3"] {
        routes(router.group(RouterPath(version)))
    }
}

extension RouterMethods where Context == AppRequestContext {
    /// Answers 405 with `Allow` for the usual methods (GET, POST, PUT, DELETE, PATCH, OPTIONS) a
    /// path does not support, instead of 404. With `preflight`, an OPTIONS that is a CORS
    /// preflight its rule allows gets the preflight's 204 instead (`CrossOrigin`).
    func refuseOtherMethods(_ path: RouterPath, allow: [HTTPRequest.Method], preflight: CrossOrigin.Preflight? = nil) {
        let allowed = allow.map(\.rawValue).joined(separator: ", ")
        for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .options] where !allow.contains(method) {
            on(path, method: method) { request, _ -> Response in
                if method == .options, let preflight, let answer = await CrossOrigin.preflightAnswer(request, methods: allow, preflight) {
                    return answer
                }
                var response = Responses.error(OAuthError(.invalidRequest, "Method not allowed; use \(allowed).", status: 405))
                response.headers[.allow] = allowed
                return response
            }
        }
    }
}
