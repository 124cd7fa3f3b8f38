import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// Token validation and session endpoints: `/oauth/validate`, `/oauth/introspect`,
/// `/oauth/userinfo`, `/oauth/revoke`, `/oauth/logout` (docs/protocol.md).
struct SessionController {
    let services: AppServices
    private var engine: BrokerEngine { services.engine }

    func register(on group: RouterGroup<AppRequestContext>) {
        // Held by the routes' closures: read through `engine` for every request, each endpoint
        // struct would be copied out of the engine and released again.
        let validation = engine.validation
        let introspection = engine.introspection
        let issuer = services.issuer
        group.refuseOtherMethods("oauth/validate", allow: [.get])
        group.get("oauth/validate") { request, _ in
            let parameters = try RequestParameters.query(request)
            let basic = try RequestParameters.basic(request)
            // A back end authenticated as the environment (Basic) asks about the token its app sent:
            // the answer names a DPoP key (`cnf`) for the back end to check the app's proof against.
            let asked = basic == nil ? nil : parameters["access_token"].map { PresentedAccessToken(token: $0, presentation: .inspection) }
            guard let presented = try asked ?? PresentedAccessToken.from(request, parameters: parameters, issuer: issuer) else {
                throw OAuthError.invalidRequest("The parameter 'access_token' is required.")
            }
            let view = try await presented.answering {
                try await validation.validate(accessToken: presented.token, basic: basic, presented: presented.presentation)
            }
            return Responses.json(object: view.body).withDPoPNonce(for: request, dpop: engine.dpop)
        }
        group.refuseOtherMethods("oauth/introspect", allow: [.post])
        group.post("oauth/introspect") { request, context in
            let parameters = try await RequestParameters.body(request, context: context)
            return Responses.json(bytes: try await introspection.introspect(parameters, basic: try RequestParameters.basic(request)).serialized)
        }
        // Browser apps on the origins their client lists may read these (CORS, `CrossOrigin`).
        let origins = engine.webOrigins
        group.refuseOtherMethods("oauth/userinfo", allow: [.get, .post], preflight: .listedOrigins(origins))
        group.crossOrigin("oauth/userinfo", .get, policy: origins) { request, _, client in
            try await userInfo(request, parameters: try RequestParameters.query(request), client: &client)
        }
        group.crossOrigin("oauth/userinfo", .post, policy: origins) { request, context, client in
            try await userInfo(request, parameters: try await RequestParameters.body(request, context: context), client: &client)
        }
        group.refuseOtherMethods("oauth/revoke", allow: [.post], preflight: .listedOrigins(origins))
        group.crossOrigin("oauth/revoke", .post, policy: origins) { request, context, client in
            let parameters = try await RequestParameters.body(request, context: context)
            let basic = try RequestParameters.basic(request)
            client = WebOriginPolicy.namedClient(parameters, basic: basic)
            try await engine.revocation.revoke(parameters, basic: basic)
            return Responses.json([String: String]())
        }
        group.refuseOtherMethods("oauth/logout", allow: [.get, .post], preflight: .listedOrigins(origins))
        group.crossOrigin("oauth/logout", .get, policy: origins) { request, _, client in
            await logout(request, confirmed: false, client: &client, parameters: { try RequestParameters.query(request) })
        }
        group.crossOrigin("oauth/logout", .post, policy: origins) { request, context, client in
            await logout(request, confirmed: true, client: &client, parameters: { try await RequestParameters.body(request, context: context) })
        }
    }

    /// The claims of the token's user; `client` becomes the token's client once it is verified.
    private func userInfo(_ request: Request, parameters: OAuthParameters, client: inout WebOriginPolicy.RequestClient) async throws -> Response {
        guard let presented = try PresentedAccessToken.from(request, parameters: parameters, issuer: services.issuer) else {
            throw OAuthError.invalidToken("An access token is required.")
        }
        let answer = try await presented.answering {
            try await engine.validation.userInfo(accessToken: presented.token, presented: presented.presentation)
        }
        client = .resolved(answer.client)
        return Responses.json(object: answer.claims).withDPoPNonce(for: request, dpop: engine.dpop)
    }

    /// RP-initiated logout (docs/protocol.md, "GET, POST /oauth/logout";
    /// docs/security.md, rules 7 and 12). A POST carrying `confirm` is the answer of the
    /// confirmation page (checked against its CSRF token); any other request is a plain one.
    /// `client` becomes the `client_id` the request names, if any.
    private func logout(_ request: Request, confirmed: Bool, client: inout WebOriginPolicy.RequestClient,
                        parameters: () async throws -> OAuthParameters) async -> Response {
        let cookies = services.cookies
        var response: Response
        do {
            let parameters = try await parameters()
            if let clientId = parameters["client_id"] { client = .named(clientId) }
            let confirmation = confirmed && parameters["confirm"] != nil
                ? (csrfToken: parameters["csrf_token"], browserBinding: cookies.existingBinding(request)) : nil
            switch try await engine.logout.logout(parameters, ssoToken: cookies.ssoToken(request), confirmation: confirmation) {
            case .redirect(let location):
                response = Responses.redirect(location)
                cookies.clearSSO(on: &response)
            case .upstream(let action):
                response = services.pages.upstreamAction(action, signingOut: true)
                cookies.clearSSO(on: &response)
            case .signedOut:
                response = services.pages.signedOutPage()
                cookies.clearSSO(on: &response)
            case .confirm(let carried, let clientName, let cancel):
                let binding = cookies.binding(for: request)
                response = services.pages.logoutConfirmation(
                    action: "\(services.issuer)/oauth/logout", fields: carried.sorted { $0.key < $1.key },
                    csrfToken: LogoutEndpoint.csrfToken(browserBinding: binding), clientName: clientName, cancel: cancel)
                cookies.setBinding(binding, on: &response)
            }
        } catch let error as OAuthError {
            response = services.pages.errorPage(error, topic: .signOut)
        } catch {
            response = services.pages.errorPage(.wrapping(error, "request"), topic: .signOut)
        }
        return response
    }

    /// The token of an `Authorization: Bearer` header, if there is one.
    static func bearer(_ request: Request) throws -> String? {
        guard let header = request.headers.value(.authorization), header.utf8.count > 7, header.hasASCIICaseInsensitivePrefix("bearer ") else {
            return nil
        }
        let token = header.dropFirst(7).trimmingSpacesAndTabs
        guard !token.isEmpty else { throw OAuthError.invalidToken("The bearer token is empty.") }
        return token
    }
}
