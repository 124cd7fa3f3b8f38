import Foundation
import Hummingbird
import IdentityCore

/// `/.well-known/openid-configuration`, `/.well-known/oauth-authorization-server`, `/.well-known/jwks.json`.
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
    }

    private func discovery() -> Response {
        var response = Responses.json(services.engine.discovery.document(), noStore: false)
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}
