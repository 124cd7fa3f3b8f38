import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// `POST /oauth/register` (RFC 7591) and RFC 7592 management of one instance
/// (docs/protocol.md, "Mobile app instances").
struct RegistrationController {
    let services: AppServices

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/register", allow: [.post])
        group.post("oauth/register") { request, context in
            let body = try await Self.jsonBody(request, context: context)
            let answer = try await services.engine.registration.register(body: body, initialAccessToken: try SessionController.bearer(request),
                                                            clientAddress: services.clientAddress(request, context))
            return Responses.json(answer, status: .created)
        }
        group.refuseOtherMethods("oauth/register/:client_id", allow: [.get, .put, .delete])
        group.get("oauth/register/:client_id") { request, context in
            Responses.json(try await services.engine.registration.read(
                clientId: context.parameters.get("client_id") ?? "", registrationToken: try SessionController.bearer(request)))
        }
        group.put("oauth/register/:client_id") { request, context in
            let body = try await Self.jsonBody(request, context: context)
            return Responses.json(try await services.engine.registration.update(
                clientId: context.parameters.get("client_id") ?? "", registrationToken: try SessionController.bearer(request), body: body))
        }
        group.delete("oauth/register/:client_id") { request, context in
            try await services.engine.registration.delete(
                clientId: context.parameters.get("client_id") ?? "", registrationToken: try SessionController.bearer(request))
            var response = Response(status: .noContent)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// A JSON object body (RFC 7591 metadata); anything else is `invalid_client_metadata`.
    static func jsonBody(_ request: Request, context: AppRequestContext) async throws -> [String: JSONValue] {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        guard case .object(let object)? = JSONValue(parsing: Data(buffer: buffer)) else {
            throw OAuthError(.invalidClientMetadata, "The request body must be a JSON object.")
        }
        return object
    }
}
