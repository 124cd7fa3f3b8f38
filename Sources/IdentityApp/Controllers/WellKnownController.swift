import Foundation
import Hummingbird
import IdentityConfig
import IdentityCore
import OAuthEngine

/// `/.well-known/openid-configuration`, `/.well-known/oauth-authorization-server`, `/.well-known/jwks.json`,
/// and the app-association files of `server.appLinks` (RFC 8252 §7.2).
struct WellKnownController {
    let services: AppServices

    func register(on router: Router<AppRequestContext>) {
        router.get(".well-known/openid-configuration") { request, _ in
            Self.serve(services.engine.discovery.cached(), request, maxAge: 300)
        }
        router.get(".well-known/oauth-authorization-server") { request, _ in
            Self.serve(services.engine.discovery.cached(), request, maxAge: 300)
        }
        for path in [".well-known/openid-configuration", ".well-known/oauth-authorization-server", ".well-known/jwks.json"] {
            router.refuseOtherMethods(RouterPath(path), allow: [.get])
        }
        router.get(".well-known/jwks.json") { request, _ in
            Self.serve(services.engine.discovery.jwks(), request, maxAge: 60)
        }
        // Apple and Google fetch these without following redirects; served as configured, exactly.
        for (path, document) in [(".well-known/apple-app-site-association", \AppLinks.apple),
                                 (".well-known/assetlinks.json", \AppLinks.android)] {
            router.refuseOtherMethods(RouterPath(path), allow: [.get])
            router.get(RouterPath(path)) { _, _ in
                guard let json = services.engine.state.config.server.appLinks[keyPath: document] else {
                    throw OAuthError(.invalidRequest, "No app links are configured.", status: 404)
                }
                var response = Responses.json(bytes: json.serialized, noStore: false)
                response.headers[.cacheControl] = "public, max-age=3600"
                return response
            }
        }
    }

    /// The same bytes for everyone, with `ETag`; 304 without a body when `If-None-Match` names it.
    static func serve(_ document: CachedDocument, _ request: Request, maxAge: Int) -> Response {
        var response: Response
        if document.matches(ifNoneMatch: request.headers[.ifNoneMatch]) {
            response = Response(status: .notModified)
        } else {
            response = Responses.json(data: document.bytes, noStore: false)
        }
        response.headers[.eTag] = document.etag
        response.headers[.cacheControl] = "public, max-age=\(maxAge)"
        return response
    }
}
