import Foundation
import Hummingbird
import IdentityConfig
import IdentityCore
import IdentityStore
import OAuthEngine

/// `GET /oauth/auth` (login page) and `POST /oauth/auth` (automated grant), SPEC §3.1–3.2.
struct AuthorizeController {
    let services: AppServices
    static let csrfCookie = "idc_csrf"

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/auth", allow: [.get, .post])
        group.get("oauth/auth") { request, context in try await authorize(request, context) }
        group.post("oauth/auth") { request, context in try await automatedGrant(request, context) }
    }

    private var engine: BrokerEngine { services.engine }

    /// The browser flow: check the request, then show the login form (or redirect upstream).
    func authorize(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let authorization: AuthorizationRequest
        do {
            let parameters = try RequestParameters.query(request)
            authorization = try AuthorizationRequest.parse(parameters, authenticator: ClientAuthenticator(directory: engine.state.directory))
        } catch let failure as AuthorizationFailure {
            return render(failure)
        } catch let error as OAuthError {
            return services.pages.errorPage(error)
        }
        let target = authorization.errorTarget
        let prompts = Set((authorization.prompt ?? "").split(separator: " ").map(String.init))
        if !prompts.contains("login") && !prompts.contains("select_account") {
            let sessions = await engine.ssoSessions(for: authorization.client, ssoToken: request.cookies[SessionController.ssoCookie]?.value)
            if let session = sessions.first {
                do {
                    return Responses.redirect(try await engine.authorizeWithSession(authorization, session: session))
                } catch let error as OAuthError {
                    return Responses.redirect(target.url(for: error))
                }
            }
        }
        if prompts.contains("none") {
            return Responses.redirect(target.url(for: OAuthError(.loginRequired, "The user is not signed in.")))
        }
        let csrf = Self.csrfToken(from: request)
        if authorization.client.authService.connector is any RedirectConnector {
            do {
                var response = services.pages.upstreamAction(try await engine.beginUpstreamLogin(authorization, browserBinding: csrf))
                setCSRFCookie(csrf, on: &response)
                return response
            } catch {
                return render(error)
            }
        }
        guard authorization.client.authService.connector is any PasswordConnector else {
            return Responses.redirect(target.url(for: .unauthorizedClient("This auth service cannot sign in through the browser.")))
        }
        if case .page(let pageURL) = authorization.client.service.customizedLogin {
            let id = try await engine.beginAuthorization(authorization, mode: .api)
            let location = RedirectURL.build(pageURL.absoluteString, [
                ("temp_login_uri", tempLoginURI(id)), ("client_id", authorization.client.clientId),
                ("redirect_uri", authorization.redirectURI), ("login_hint", authorization.loginHint),
            ])
            return Responses.redirect(location)
        }
        let id = try await engine.beginAuthorization(authorization, mode: .browser, csrfToken: csrf)
        var response = services.pages.loginPage(loginForm(
            id: id, client: authorization.client, csrf: csrf, username: authorization.loginHint, error: nil))
        setCSRFCookie(csrf, on: &response)
        return response
    }

    /// The automated authorization grant: answers `{"temp_login_uri": ...}` and never redirects.
    func automatedGrant(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let parameters = try await RequestParameters.body(request, context: context)
        let basic = try RequestParameters.basic(request)
        let authenticator = ClientAuthenticator(directory: engine.state.directory)
        if basic != nil || parameters["client_secret"] != nil {
            _ = try authenticator.authenticate(parameters, basic: basic)
        }
        let authorization: AuthorizationRequest
        do {
            authorization = try AuthorizationRequest.parse(parameters, authenticator: authenticator)
        } catch {
            throw error.error
        }
        guard authorization.client.authService.connector is any PasswordConnector else {
            throw OAuthError.invalidRequest("This auth service signs in through the browser; use GET /oauth/auth.")
        }
        let id = try await engine.beginAuthorization(authorization, mode: .api)
        return Responses.json(["temp_login_uri": tempLoginURI(id)])
    }

    func tempLoginURI(_ id: String) -> String { "\(services.issuer)/oauth/authenticate/\(id)" }

    func loginForm(id: String, client: ResolvedClient, csrf: String, username: String?, error: String?) -> Pages.LoginForm {
        var stylesheet: URL?
        if case .css(let url) = client.service.customizedLogin { stylesheet = url }
        return Pages.LoginForm(heading: client.service.name ?? "Sign in", action: tempLoginURI(id), csrfToken: csrf,
                               username: username, error: error, stylesheet: stylesheet)
    }

    func render(_ failure: AuthorizationFailure) -> Response {
        switch failure {
        case .cannotRedirect(let error): services.pages.errorPage(error)
        case .redirect(let error, let target): Responses.redirect(target.url(for: error))
        }
    }

    /// The browser's CSRF token: reused from its cookie when well formed, else new.
    static func csrfToken(from request: Request) -> String {
        if let existing = request.cookies[csrfCookie]?.value, existing.utf8.count == 43,
           Base64URL.decode(existing) != nil {
            return existing
        }
        return Secrets.randomToken()
    }

    func setCSRFCookie(_ token: String, on response: inout Response) {
        response.setCookie(Cookie(name: Self.csrfCookie, value: token, path: "/", secure: services.secureCookies,
                                  httpOnly: true, sameSite: .lax))
    }
}
