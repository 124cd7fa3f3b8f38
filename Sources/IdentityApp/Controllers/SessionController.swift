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
        // struct was copied out of the engine and released again (1.6% of an introspection).
        let validation = engine.validation
        let introspection = engine.introspection
        group.refuseOtherMethods("oauth/validate", allow: [.get])
        group.get("oauth/validate") { request, _ in
            let parameters = try RequestParameters.query(request)
            guard let token = try Self.bearer(request) ?? parameters["access_token"] else {
                throw OAuthError.invalidRequest("The parameter 'access_token' is required.")
            }
            let view = try await validation.validate(accessToken: token, basic: try RequestParameters.basic(request))
            return Responses.json(object: view.body)
        }
        group.refuseOtherMethods("oauth/introspect", allow: [.post])
        group.post("oauth/introspect") { request, context in
            let parameters = try await RequestParameters.body(request, context: context)
            return Responses.json(bytes: try await introspection.introspect(parameters, basic: try RequestParameters.basic(request)).serialized)
        }
        group.refuseOtherMethods("oauth/userinfo", allow: [.get, .post])
        group.get("oauth/userinfo") { request, _ in try await userInfo(request, parameters: try RequestParameters.query(request)) }
        group.post("oauth/userinfo") { request, context in
            try await userInfo(request, parameters: try await RequestParameters.body(request, context: context))
        }
        group.refuseOtherMethods("oauth/revoke", allow: [.post])
        group.post("oauth/revoke") { request, context in
            let parameters = try await RequestParameters.body(request, context: context)
            try await engine.revocation.revoke(parameters, basic: try RequestParameters.basic(request))
            return Responses.json([String: String]())
        }
        group.refuseOtherMethods("oauth/logout", allow: [.get, .post])
        group.get("oauth/logout") { request, _ in
            await logout(request, confirmed: false, parameters: { try RequestParameters.query(request) })
        }
        group.post("oauth/logout") { request, context in
            await logout(request, confirmed: true, parameters: { try await RequestParameters.body(request, context: context) })
        }
    }

    private func userInfo(_ request: Request, parameters: OAuthParameters) async throws -> Response {
        guard let token = try Self.bearer(request) ?? parameters["access_token"] else {
            throw OAuthError.invalidToken("An access token is required.")
        }
        return Responses.json(object: try await engine.validation.userInfo(accessToken: token))
    }

    /// RP-initiated logout (docs/protocol.md, "GET, POST /oauth/logout";
    /// docs/security.md, rules 7 and 12). A POST carrying `confirm` is the answer of the
    /// confirmation page (checked against its CSRF token); any other request is a plain one.
    private func logout(_ request: Request, confirmed: Bool, parameters: () async throws -> OAuthParameters) async -> Response {
        let cookies = services.cookies
        var response: Response
        do {
            let parameters = try await parameters()
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
            case .confirm(let carried, let clientName):
                let binding = cookies.binding(for: request)
                response = services.pages.logoutConfirmation(
                    action: "\(services.issuer)/oauth/logout", fields: carried.sorted { $0.key < $1.key },
                    csrfToken: LogoutEndpoint.csrfToken(browserBinding: binding), clientName: clientName)
                cookies.setBinding(binding, on: &response)
            }
        } catch let error as OAuthError {
            response = services.pages.errorPage(error)
        } catch {
            response = services.pages.errorPage(.wrapping(error, "request"))
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
