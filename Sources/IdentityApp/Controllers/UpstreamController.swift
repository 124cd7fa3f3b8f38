import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// Where identity sources send the browser back: `GET /oauth/callback` (OAuth 2.0 / OIDC) and
/// `POST /saml/acs` (SAML HTTP-POST), plus SAML SP metadata.
struct UpstreamController {
    let services: AppServices
    /// Marks the ACS post the broker's own page made (see `bounce`).
    static let bounceField = "idc_bounce"

    private var cookies: BrowserCookies { services.cookies }

    func registerCallback(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/callback", allow: [.get])
        group.get("oauth/callback") { request, context in
            let parameters: OAuthParameters
            do { parameters = try RequestParameters.query(request) } catch let error as OAuthError {
                return services.pages.errorPage(error)
            }
            return await finish(.oauthCallback, parameters, request, context)
        }
    }

    func registerSAML(on router: Router<AppRequestContext>) {
        router.refuseOtherMethods("saml/acs", allow: [.post])
        router.post("saml/acs") { request, context in
            let parameters: OAuthParameters
            do {
                // A SAMLResponse is large; the body limit (1 MiB) still bounds it.
                parameters = try await RequestParameters.body(request, context: context, maxValueLength: 1 << 20)
            } catch let error as OAuthError {
                return services.pages.errorPage(error)
            }
            if cookies.existingBinding(request) == nil, parameters[Self.bounceField] == nil {
                return bounce(parameters)
            }
            return await finish(.samlAssertionConsumer, parameters, request, context)
        }
        for path in ["saml/metadata", "v2/saml/metadata"] {
            router.get(RouterPath(path)) { _, _ in try metadata(authServiceId: nil) }
        }
        router.get("saml/:authServiceId/metadata") { _, context in
            try metadata(authServiceId: context.parameters.get("authServiceId"))
        }
    }

    /// The IdP's POST to the ACS is cross-site, so browsers leave out the binding cookie
    /// (SameSite=Lax) that proves this is the browser that started the sign-in
    /// (docs/security.md, rule 4). The ACS answers such a POST with a page that posts the same
    /// fields again from the broker's own origin, which carries the cookie; the second post is
    /// finished or refused for good.
    private func bounce(_ parameters: OAuthParameters) -> Response {
        var fields: [RedirectAction.FormField] = []
        for name in ["SAMLResponse", "RelayState"] {
            if let value = parameters[name] { fields.append(.init(name, value)) }
        }
        fields.append(.init(Self.bounceField, "1"))
        return services.pages.upstreamAction(.autoPost(url: "\(services.issuer)/saml/acs", fields: fields))
    }

    private func finish(_ kind: CallbackKind, _ parameters: OAuthParameters, _ request: Request,
                        _ context: AppRequestContext) async -> Response {
        var values: [String: String] = [:]
        for name in parameters.names where name != Self.bounceField { values[name] = parameters[name] ?? "" }
        do {
            return services.render(try await services.engine.upstreamSignIn.finish(
                kind: kind, parameters: values, browser: services.browser(request, context)))
        } catch {
            return services.render(error)
        }
    }

    /// SP metadata of one auth service, or of the first SAML auth service when none is named.
    private func metadata(authServiceId: String?) throws -> Response {
        let publishers = services.engine.state.directory.environments.keys.sorted().flatMap { appKey in
            (services.engine.state.directory.environments[appKey]?.services.values.sorted { $0.id < $1.id } ?? [])
        }.filter { ($0.connector is any MetadataPublishingConnector) && (authServiceId == nil || $0.id == authServiceId) }
        guard let publisher = publishers.first?.connector as? any MetadataPublishingConnector else {
            throw OAuthError(.invalidRequest, "No SAML auth service\(authServiceId.map { " '\($0)'" } ?? "") is configured.", status: 404)
        }
        let (contentType, body) = publisher.metadata()
        return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "public, max-age=300"],
                        body: .init(byteBuffer: .init(string: body)))
    }
}
