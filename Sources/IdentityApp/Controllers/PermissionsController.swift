import Hummingbird
import IdentityCore
import OAuthEngine

/// Permission requests for back ends (docs/consent.md, "Permission requests"):
/// `POST /oauth/permissions` asks for a user's permission, `GET /oauth/permissions/{id}` and
/// `GET /oauth/permissions?external_reference=` read its status. Clients authenticate as at the
/// token endpoint (Basic, or a client assertion in the body / query); errors are the usual JSON.
struct PermissionsController {
    let services: AppServices

    func register(on group: RouterGroup<AppRequestContext>) {
        let permissions = services.engine.permissions
        group.refuseOtherMethods("oauth/permissions", allow: [.get, .post])
        group.post("oauth/permissions") { request, context in
            let parameters = try await RequestParameters.body(request, context: context)
            let created = try await permissions.create(parameters, basic: try RequestParameters.basic(request),
                                                       clientAddress: services.clientAddress(request, context))
            return Responses.json(created, status: .created)
        }
        group.get("oauth/permissions") { request, _ in
            let query = try RequestParameters.query(request)
            guard let reference = query["external_reference"] else {
                throw OAuthError.invalidRequest("Name the permission by its id (/oauth/permissions/{id}) or by external_reference.")
            }
            return Responses.json(try await permissions.status(id: nil, externalReference: reference, parameters: query,
                                                               basic: try RequestParameters.basic(request)))
        }
        group.refuseOtherMethods("oauth/permissions/:id", allow: [.get])
        group.get("oauth/permissions/:id") { request, context in
            let query = try RequestParameters.query(request)
            return Responses.json(try await permissions.status(id: context.parameters.get("id") ?? "", externalReference: nil,
                                                               parameters: query, basic: try RequestParameters.basic(request)))
        }
    }
}
