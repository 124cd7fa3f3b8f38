import HTTPTypes
import Hummingbird
import OAuthEngine

/// CORS for browser apps on other origins (docs/protocol.md and docs/security.md, "Browser apps
/// (CORS)"). Discovery and the JWKS are for any origin (`WellKnownController` and
/// `PrecomputedDocumentHandler` send `Access-Control-Allow-Origin: *`); the token, userinfo,
/// revocation and end-session routes are registered through ``RouterMethods/crossOrigin(_:_:policy:handler:)``
/// and answer their preflights through ``RouterMethods/refuseOtherMethods(_:allow:preflight:)``.
/// Never `Access-Control-Allow-Credentials`: no cookie of the broker's crosses origins.
enum CrossOrigin {
    /// Request headers a browser app may send (`DPoP` for sender-constrained tokens).
    static let allowedHeaders = "Authorization, Content-Type, DPoP"
    /// Response headers a page may read beyond the CORS-safelisted ones.
    static let exposedHeaders = "WWW-Authenticate, Retry-After, DPoP-Nonce"
    /// Seconds a browser may keep a preflight's answer (Chromium keeps at most 7200). Short, so
    /// an origin taken off `webOrigins` stops working soon after a reload.
    static let maxAge = "600"

    /// Who may preflight a route: the origins some client lists, or any origin (public documents).
    enum Preflight: Sendable {
        case listedOrigins(WebOriginPolicy)
        case anyOrigin
    }

    /// The preflight answer (204) when `request` is a CORS preflight (`Origin` and
    /// `Access-Control-Request-Method` naming one of `methods`) that `preflight` allows; else nil,
    /// and the request is answered as any OPTIONS is (405).
    static func preflightAnswer(_ request: Request, methods: [HTTPRequest.Method], _ preflight: Preflight) async -> Response? {
        guard let origin = request.headers[.origin], let asked = request.headers[.accessControlRequestMethod],
              methods.contains(where: { $0.rawValue == asked }) else { return nil }
        var headers: HTTPFields = [
            .accessControlAllowMethods: methods.map(\.rawValue).joined(separator: ", "),
            .accessControlAllowHeaders: allowedHeaders,
            .accessControlMaxAge: maxAge,
        ]
        switch preflight {
        case .anyOrigin:
            headers[.accessControlAllowOrigin] = "*"
        case .listedOrigins(let policy):
            guard await policy.isListed(origin) else { return nil }
            headers[.accessControlAllowOrigin] = origin
            headers[.vary] = "Origin"
        }
        return Response(status: .noContent, headers: headers)
    }

    /// Adds `Vary: Origin`, and `Access-Control-Allow-Origin` with the exposed headers when `allowed`.
    static func decorate(_ response: inout Response, origin: String, allowed: Bool) {
        response.headers.append(HTTPField(name: .vary, value: "Origin"))
        guard allowed else { return }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = exposedHeaders
    }
}

extension RouterMethods where Context == AppRequestContext {
    /// Registers `handler` for `method` at `path` with CORS: when the request carries `Origin`,
    /// its answer — the error answer included, so a page can read what went wrong — carries
    /// `Vary: Origin`, and `Access-Control-Allow-Origin` when `policy` allows the origin for the
    /// client the handler names through its `inout` argument (as soon as it knows it). Without
    /// `Origin`, the handler runs exactly as a plain route.
    func crossOrigin(_ path: RouterPath, _ method: HTTPRequest.Method, policy: WebOriginPolicy,
                     handler: @escaping @Sendable (Request, Context, inout WebOriginPolicy.RequestClient) async throws -> Response) {
        on(path, method: method) { request, context -> Response in
            var client = WebOriginPolicy.RequestClient.unnamed
            guard let origin = request.headers[.origin] else { return try await handler(request, context, &client) }
            var response: Response
            do {
                response = try await handler(request, context, &client)
            } catch {
                response = ErrorAnswers.response(for: error, logger: context.logger)
            }
            CrossOrigin.decorate(&response, origin: origin, allowed: await policy.allows(origin, for: client))
            return response
        }
    }
}
