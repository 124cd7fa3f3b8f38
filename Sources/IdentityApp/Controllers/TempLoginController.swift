import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine
import PageLanguages
import StoreContracts

/// The temp login URI `/oauth/authenticate/{id}`: the login form posts here, and so do
/// automated-grant clients and customers' own login pages (docs/protocol.md, "GET /oauth/auth" and
/// "The temp login URI").
struct TempLoginController {
    let services: AppServices
    /// Held here rather than read through the engine per request, which copied the endpoint
    /// struct out and released it again (as `SessionController` found for introspection).
    private let passwordSignIn: PasswordSignIn

    init(services: AppServices) {
        self.services = services
        passwordSignIn = services.engine.passwordSignIn
    }

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/authenticate/:id", allow: [.get, .post])
        group.get("oauth/authenticate/:id") { request, context in try await show(request, context) }
        group.post("oauth/authenticate/:id") { request, context in try await submit(request, context) }
    }

    private var cookies: BrowserCookies { services.cookies }

    /// Shows the login form again (after a failed attempt) for a browser-mode authorization, to
    /// the browser that started it.
    func show(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard let pending = try await services.engine.authorizations.find(id: id), pending.mode == .browser,
              let binding = cookies.existingBinding(request), let expected = pending.browserHash,
              Secrets.constantTimeEquals(Secrets.hash(binding), expected),
              let client = try await services.engine.authorizations.client(for: pending) else {
            return services.pages.errorPage(.invalidRequest("This sign-in page has expired. Start again from the app."))
        }
        return services.pages.loginPage(services.engine.authorize.loginForm(
            id: id, client: client, binding: binding, username: pending.loginHint, error: pending.lastError.map(PageText.init(message:)),
            uiLocales: pending.uiLocales))
    }

    func submit(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        let parameters: OAuthParameters
        do {
            parameters = try await RequestParameters.body(request, context: context)
        } catch let error as OAuthError {
            return failure(.cannotRedirect(error), fromBrowser: wantsHTML(request))
        }
        let formToken = parameters["csrf_token"]
        let fromBrowser = formToken != nil || wantsHTML(request)
        do {
            switch try await passwordSignIn.signIn(pendingId: id, parameters: parameters, csrfToken: formToken,
                                                   browser: services.browser(request, context)) {
            case .redirect(let answer):
                return services.pages.answer(answer)
            case .finished(let result):
                return services.render(result)
            case .retry(let pendingId, _):
                return Responses.redirect(RedirectURL.build(services.engine.authorize.tempLoginURI(pendingId), [("error", "access_denied")]))
            }
        } catch {
            return failure(error, fromBrowser: fromBrowser)
        }
    }

    private func failure(_ failure: AuthorizationFailure, fromBrowser: Bool) -> Response {
        switch failure {
        case .cannotRedirect(let error):
            return fromBrowser ? services.pages.errorPage(error) : Responses.error(error)
        case .redirect(let error, let target):
            return services.pages.answer(target.answer(for: error))
        }
    }

    private func wantsHTML(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("text/html") ?? false
    }
}
