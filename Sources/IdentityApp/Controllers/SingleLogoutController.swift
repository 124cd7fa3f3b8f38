import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// `GET|POST /saml/slo`, SAML single logout (docs/connectors/saml.md, "Single logout"): the
/// IdP's LogoutResponse to a sign-out the broker passed on, or the IdP's own LogoutRequest, over
/// HTTP-Redirect (query) or HTTP-POST (form). A message that was accepted clears this browser's
/// SSO cookie; a refused one changes nothing (a forged link must not sign a browser out).
struct SingleLogoutController {
    let services: AppServices

    func register(on router: Router<AppRequestContext>) {
        router.refuseOtherMethods("saml/slo", allow: [.get, .post])
        router.get("saml/slo") { request, _ in
            await handle(request, binding: .redirect) { try RequestParameters.query(request) }
        }
        router.post("saml/slo") { request, context in
            // A LogoutRequest is small, but an IdP may sign it with a long certificate chain.
            await handle(request, binding: .post) {
                try await RequestParameters.body(request, context: context, maxValueLength: 1 << 20)
            }
        }
    }

    private func handle(_ request: Request, binding: LogoutMessage.Binding,
                        parameters: () async throws -> OAuthParameters) async -> Response {
        var response: Response
        var accepted = false
        do {
            let parameters = try await parameters()
            var values: [String: String] = [:]
            for name in parameters.names { values[name] = parameters[name] ?? "" }
            let message = LogoutMessage(binding: binding, parameters: values,
                                        rawQuery: binding == .redirect ? request.uri.query : nil)
            switch try await services.engine.singleLogout.handle(message) {
            case .redirect(let location): response = Responses.redirect(location)
            case .upstream(let action): response = services.pages.upstreamAction(action, signingOut: true)
            case .signedOut: response = services.pages.signedOutPage()
            }
            accepted = true
        } catch let error as OAuthError {
            response = services.pages.errorPage(error, topic: .signOut)
        } catch {
            response = services.pages.errorPage(.wrapping(error, "request"), topic: .signOut)
        }
        if accepted { services.cookies.clearSSO(on: &response) }
        return response
    }
}
