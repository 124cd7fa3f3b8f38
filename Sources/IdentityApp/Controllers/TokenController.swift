import Hummingbird
import OAuthEngine

/// `POST /oauth/token` (docs/protocol.md, "POST /oauth/token").
struct TokenController {
    let services: AppServices

    func register(on group: RouterGroup<AppRequestContext>) {
        // Held by the closure rather than read through the engine per request (see SessionController).
        let tokens = services.engine.tokens
        let origins = services.engine.webOrigins
        let dpop = services.engine.dpop
        group.refuseOtherMethods("oauth/token", allow: [.post], preflight: .listedOrigins(origins))
        group.crossOrigin("oauth/token", .post, policy: origins) { request, context, client in
            let parameters = try await RequestParameters.body(request, context: context)
            let basic = try RequestParameters.basic(request)
            client = WebOriginPolicy.namedClient(parameters, basic: basic)
            let response = try await tokens.token(parameters, basic: basic, clientAddress: services.clientAddress(request, context),
                                                  dpopProofs: request.headers[values: .dpop], path: request.uri.path)
            return Responses.json(bytes: response.serialized).withDPoPNonce(for: request, dpop: dpop)
        }
        // RFC 9126: pushed authorization requests, authenticated as here.
        group.refuseOtherMethods("oauth/par", allow: [.post])
        group.post("oauth/par") { request, context in
            let parameters = try await RequestParameters.body(request, context: context)
            let pushed = try await services.engine.pushedAuthorizations.push(parameters, basic: try RequestParameters.basic(request),
                                                                             clientAddress: services.clientAddress(request, context),
                                                                             dpopProofs: request.headers[values: .dpop],
                                                                             path: request.uri.path)
            return Responses.json(pushed, status: .created)
        }
    }
}
