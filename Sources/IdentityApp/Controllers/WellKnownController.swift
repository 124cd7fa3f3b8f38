import Foundation
import Hummingbird
import IdentityConfig
import IdentityCore

/// `/.well-known/openid-configuration`, `/.well-known/oauth-authorization-server`, `/.well-known/jwks.json`,
/// and the app-association files of `server.appLinks` (RFC 8252 §7.2).
struct WellKnownController {
    let services: AppServices

    func register(on router: Router<AppRequestContext>) {
        router.get(".well-known/openid-configuration") { _, _ in discovery() }
        router.get(".well-known/oauth-authorization-server") { _, _ in discovery() }
        for path in [".well-known/openid-configuration", ".well-known/oauth-authorization-server", ".well-known/jwks.json"] {
            router.refuseOtherMethods(RouterPath(path), allow: [.get])
        }
        router.get(".well-known/jwks.json") { _, _ in
            var response = Responses.json(data: services.engine.state.keys.jwksDocument, noStore: false)
            response.headers[.cacheControl] = "public, max-age=60"
            return response
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

    private func discovery() -> Response {
        var response = Responses.json(services.engine.discovery.document(), noStore: false)
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}
