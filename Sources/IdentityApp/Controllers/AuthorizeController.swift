import Foundation
import Hummingbird
import IdentityConfig
import IdentityCore
import StoreContracts
import OAuthEngine

/// `GET /oauth/auth` (login page) and `POST /oauth/auth` (automated grant), SPEC §3.1–3.2.
struct AuthorizeController {
    let services: AppServices

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/auth", allow: [.get, .post])
        group.get("oauth/auth") { request, context in try await authorize(request, context) }
        group.post("oauth/auth") { request, context in try await automatedGrant(request, context) }
    }

    private var engine: BrokerEngine { services.engine }
    private var cookies: BrowserCookies { services.cookies }

    /// The browser flow: check the request, then sign in with what the browser already has (an
    /// app-to-web `css` value, an SSO session), offer its accounts (`prompt=select_account`), or
    /// show the login form (or redirect upstream).
    func authorize(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let authorization: AuthorizationRequest
        let parameters: OAuthParameters
        do {
            parameters = try RequestParameters.query(request)
            let state = engine.state
            authorization = try await AuthorizationRequest.parse(parameters) { try await engine.resolveClient($0, state: state) }
        } catch let failure as AuthorizationFailure {
            return render(failure)
        } catch let error as OAuthError {
            return services.pages.errorPage(error)
        }
        let prompts = Set((authorization.prompt ?? "").split(separator: " ").map(String.init))
        let ssoToken = cookies.ssoToken(request)
        if let webSSO = request.cookies[Self.webSSOCookie]?.value {
            // Taken (spent) whatever happens next; prompt=login still shows the form.
            let session = await engine.redeemWebSSOValue(webSSO, for: authorization.client)
            var response: Response
            if let session, !prompts.contains("login") {
                response = await signIn(authorization, with: session, remember: true, ssoToken: ssoToken)
            } else {
                response = try await startSignIn(authorization, prompts: prompts, request: request, context: context)
            }
            clearWebSSOCookie(on: &response)
            return response
        }
        if !prompts.contains("login") {
            let sessions = await engine.ssoSessions(for: authorization.client, ssoToken: ssoToken)
            if prompts.contains("select_account"), !sessions.isEmpty {
                return accountChooser(authorization, sessions: sessions, parameters: parameters)
            }
            let hint = authorization.loginHint
            if !prompts.contains("select_account"), let session = hint == nil ? sessions.first : sessions.first(where: { $0.userId == hint }) {
                return await signIn(authorization, with: session, remember: false, ssoToken: ssoToken)
            }
        }
        return try await startSignIn(authorization, prompts: prompts, request: request, context: context)
    }

    /// Issues the code for an existing sign-in; with `remember` (a sign-in carried over from an
    /// app), it is remembered like a form sign-in, under a new SSO cookie value.
    private func signIn(_ authorization: AuthorizationRequest, with session: LoginSession, remember: Bool,
                        ssoToken: String?) async -> Response {
        do {
            var response = Responses.redirect(try await engine.authorizeWithSession(authorization, session: session))
            if remember {
                cookies.setSSO(await engine.rememberSignIn(session, client: authorization.client, ssoToken: ssoToken), on: &response)
            }
            return response
        } catch let error as OAuthError {
            return Responses.redirect(authorization.errorTarget.url(for: error))
        } catch {
            return Responses.redirect(authorization.errorTarget.url(for: .internalFailure("SSO sign-in: \(error)")))
        }
    }

    /// No existing sign-in applies: `prompt=none` fails, else the form or the identity source.
    private func startSignIn(_ authorization: AuthorizationRequest, prompts: Set<String>, request: Request,
                             context: AppRequestContext) async throws -> Response {
        let target = authorization.errorTarget
        if prompts.contains("none") {
            return Responses.redirect(target.url(for: OAuthError(.loginRequired, "The user is not signed in.")))
        }
        let binding = cookies.binding(for: request)
        let address = services.clientAddress(request, context)
        if authorization.client.authService.connector is any RedirectConnector {
            do {
                var response = services.pages.upstreamAction(try await engine.beginUpstreamLogin(
                    authorization, browserBinding: binding, clientAddress: address))
                cookies.setBinding(binding, on: &response)
                return response
            } catch {
                return render(error)
            }
        }
        guard authorization.client.authService.connector is any PasswordConnector else {
            return Responses.redirect(target.url(for: .unauthorizedClient("This auth service cannot sign in through the browser.")))
        }
        let id: String
        do {
            let mode: PendingAuthorization.Mode = authorization.client.service.customizedLogin.isPage ? .api : .browser
            id = try await engine.beginAuthorization(authorization, mode: mode, browserBinding: binding, clientAddress: address)
        } catch let error as OAuthError {
            return services.pages.errorPage(error)
        }
        if case .page(let pageURL) = authorization.client.service.customizedLogin {
            let location = RedirectURL.build(pageURL.absoluteString, [
                ("temp_login_uri", tempLoginURI(id)), ("client_id", authorization.client.clientId),
                ("redirect_uri", authorization.redirectURI), ("login_hint", authorization.loginHint),
            ])
            var response = Responses.redirect(location)
            cookies.setBinding(binding, on: &response)
            return response
        }
        var response = services.pages.loginPage(loginForm(
            id: id, client: authorization.client, binding: binding, username: authorization.loginHint, error: nil))
        cookies.setBinding(binding, on: &response)
        return response
    }

    /// The automated authorization grant: answers `{"temp_login_uri": ...}` and never redirects.
    /// Its temp login URI is bound to no browser: signing in there never sets the SSO cookie.
    func automatedGrant(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let parameters = try await RequestParameters.body(request, context: context)
        let basic = try RequestParameters.basic(request)
        let state = engine.state
        if basic != nil || parameters["client_secret"] != nil {
            _ = try await engine.authenticateClient(parameters, basic: basic, state: state)
        }
        let authorization: AuthorizationRequest
        do {
            authorization = try await AuthorizationRequest.parse(parameters) { try await engine.resolveClient($0, state: state) }
        } catch {
            // On this JSON API an unknown client is the usual 401 with `WWW-Authenticate: Basic`
            // (SPEC §3); the browser flow keeps 400 so that no Basic prompt ever appears.
            if error.error.code == .invalidClient { throw OAuthError.invalidClient(error.error.errorDescription) }
            throw error.error
        }
        guard authorization.client.authService.connector is any PasswordConnector else {
            throw OAuthError.invalidRequest("This auth service signs in through the browser; use GET /oauth/auth.")
        }
        let id = try await engine.beginAuthorization(authorization, mode: .api, clientAddress: services.clientAddress(request, context))
        return Responses.json(["temp_login_uri": tempLoginURI(id)])
    }

    func tempLoginURI(_ id: String) -> String { "\(services.issuer)/oauth/authenticate/\(id)" }

    /// The hosted login form of pending authorization `id`; its CSRF token is bound to the
    /// pending authorization and to this browser's binding cookie.
    func loginForm(id: String, client: ResolvedClient, binding: String, username: String?, error: String?) -> Pages.LoginForm {
        var stylesheet: URL?
        if case .css(let url) = client.service.customizedLogin { stylesheet = url }
        return Pages.LoginForm(heading: client.service.name ?? "Sign in", action: tempLoginURI(id),
                               csrfToken: BrokerEngine.formToken(pendingId: id, browserBinding: binding),
                               username: username, error: error, stylesheet: stylesheet)
    }

    func render(_ failure: AuthorizationFailure) -> Response {
        switch failure {
        case .cannotRedirect(let error): services.pages.errorPage(error)
        case .redirect(let error, let target): Responses.redirect(target.url(for: error))
        }
    }
}

extension Optional where Wrapped == AuthService.CustomizedLogin {
    /// A customer's own login page posts the credentials to the temp login URI.
    var isPage: Bool {
        if case .page? = self { return true }
        return false
    }
}
