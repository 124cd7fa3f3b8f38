import Foundation
import IdentityConfig
import IdentityCore
import PageLanguages
import StoreContracts

/// The authorization endpoint's decisions (docs/protocol.md, "GET /oauth/auth" and
/// "POST /oauth/auth"): sign in with what the browser already has (an app-to-web `css` value, an
/// SSO session), offer its accounts, or start a sign-in (login form, customer page, identity
/// source). No HTTP here: the controller parses the request and renders the outcome.
public struct AuthorizeEndpoint: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let clients: ClientRegistry
    let authorizations: PendingAuthorizations
    let upstream: UpstreamSignIn
    let sso: SSOSessions
    let webSSO: WebSSO
    let pushed: PushedAuthorizations
    let requestObjects: RequestObjects
    let secondFactors: SecondFactors
    let secondStep: SecondStepSignIn
    let consent: ConsentGate
    let permissions: PermissionRequests

    /// `GET /oauth/auth` (and a browser's form POST to it).
    public func authorize(_ given: OAuthParameters, browser: BrowserContext) async -> AuthorizeResult {
        let state = context.state
        var request: AuthorizationRequest
        let parameters: OAuthParameters
        do throws(AuthorizationFailure) {
            var expanded: (parameters: OAuthParameters, pushed: Bool)
            var permission: PermissionRequest?
            if let uri = given["request_uri"], uri.hasPrefix(PermissionRequests.uriPrefix) {
                let found = try await permissions.parameters(for: uri)
                guard given["client_id"] == found.1.clientId else {
                    throw .cannotRedirect(.invalidRequest("This permission request belongs to another client."))
                }
                (expanded, permission) = ((found.0, true), found.1)
            } else {
                expanded = try await pushed.expand(given)
            }
            parameters = try await requestObjects.expand(expanded.parameters, pushed: expanded.pushed, in: state)
            request = try await AuthorizationRequest.parse(parameters, issuer: context.issuer) { try await clients.resolve($0, in: state) }
            request.permissionId = permission?.id
            if request.client.service.requirePar && !expanded.pushed {
                throw AuthorizationFailure.redirect(.invalidRequest("This app must push its authorization requests (PAR) first."),
                                                    request.errorTarget)
            }
        } catch {
            var outcome = Self.outcome(for: error)
            if case .errorPage(let refusal, _) = outcome, let named = given["client_id"], named.utf8.count <= 256,
               let client = try? await clients.resolve(named, in: state) {
                outcome = .errorPage(refusal, back: client.home)
            }
            return AuthorizeResult(outcome: outcome, binding: nil, clearWebSSO: false)
        }
        return await proceed(request, parameters: parameters, browser: browser)
    }

    /// Goes on with a checked request: what the browser already has (an app-to-web value, an
    /// SSO session), the account chooser, or a new sign-in. The account page's own sign-in
    /// (`AccountSignIn`) enters here with a request it built itself.
    func proceed(_ request: AuthorizationRequest, parameters: OAuthParameters, browser: BrowserContext) async -> AuthorizeResult {
        var prompts = Set((request.prompt ?? "").split(separator: " ").map(String.init))
        // OIDC Core 3.1.2.1: max_age=0 is prompt=login; otherwise only sign-ins recent enough count.
        if request.maxAge == 0 { prompts.insert("login") }
        let now = context.clock.now()
        func recentEnough(_ session: LoginSession) -> Bool {
            request.maxAge.map { now.timeIntervalSince(session.authTime) <= TimeInterval($0) } ?? true
        }
        if let value = browser.webSSOValue {
            // Taken (spent) whatever happens next; prompt=login still shows the form.
            var result: AuthorizeResult
            if let session = await webSSO.redeem(value, for: request.client), !prompts.contains("login"), recentEnough(session) {
                result = await signIn(request, with: session, rememberFor: browser, browser: browser, prompts: prompts)
            } else {
                result = await startSignIn(request, prompts: prompts, browser: browser)
            }
            result.clearWebSSO = true
            return result
        }
        if !prompts.contains("login") {
            let sessions = await sso.sessions(for: request.client, ssoToken: browser.ssoToken).filter(recentEnough)
            if prompts.contains("select_account"), !sessions.isEmpty {
                return AuthorizeResult(outcome: .accountChooser(accountChooser(request, sessions: sessions, parameters: parameters)),
                                       binding: nil, clearWebSSO: false)
            }
            let hint = request.loginHint
            if !prompts.contains("select_account"), let session = hint == nil ? sessions.first : sessions.first(where: { $0.userId == hint }) {
                return await signIn(request, with: session, rememberFor: nil, browser: browser, prompts: prompts)
            }
        }
        return await startSignIn(request, prompts: prompts, browser: browser)
    }

    /// Issues the code for an existing sign-in. A sign-in carried over from an app
    /// (`rememberFor` the browser) gets an SSO record of its own, holding nothing else of the
    /// browser's: a planted `css` value must not mix with the browser's own sign-ins.
    ///
    /// A session that has not proved a second factor where one is needed (`mfa.mode: required`,
    /// or the user has enrolled one) goes through the second-step page first (docs/mfa.md).
    private func signIn(_ request: AuthorizationRequest, with session: LoginSession, rememberFor remembered: BrowserContext?,
                        browser: BrowserContext, prompts: Set<String>) async -> AuthorizeResult {
        do {
            let need = try await secondFactors.need(SecondFactors.owner(userId: session.userId, client: request.client),
                                                    client: request.client, amr: session.amr, stepUp: request.stepUp)
            if need != .none {
                if prompts.contains("none") {
                    return AuthorizeResult(outcome: .redirect(request.errorTarget.answer(for: OAuthError(.loginRequired,
                        "A second factor is required; sign in interactively."))), binding: nil, clearWebSSO: false)
                }
                let binding = browser.binding ?? Secrets.randomToken()
                let page = try await secondStep.stepUp(request, session: session, need: need, browserBinding: binding)
                return AuthorizeResult(outcome: .secondStep(page), binding: binding, clearWebSSO: false)
            }
            if try await consent.mustAsk(client: request.client, subject: session.subject, scope: request.scope, claims: request.claims,
                                         prompt: request.prompt,
                                         redirectURI: request.redirectURI, permissionId: request.permissionId) {
                return try await askConsent(request, session: session, separateSSO: remembered != nil, browser: browser, prompts: prompts)
            }
        } catch {
            let failure = OAuthError.wrapping(error, "second factor and consent check")
            return AuthorizeResult(outcome: .redirect(request.errorTarget.answer(for: failure)), binding: nil, clearWebSSO: false)
        }
        return AuthorizeResult(outcome: await issue(request, with: session, rememberFor: remembered), binding: nil, clearWebSSO: false)
    }

    /// The SSO session's app needs the user's consent first (docs/consent.md): the consent page,
    /// or `consent_required` for `prompt=none`.
    private func askConsent(_ request: AuthorizationRequest, session: LoginSession, separateSSO: Bool, browser: BrowserContext,
                            prompts: Set<String>) async throws -> AuthorizeResult {
        if prompts.contains("none") {
            return AuthorizeResult(outcome: .redirect(request.errorTarget.answer(for: OAuthError(.consentRequired,
                "This app needs your consent; sign in interactively."))), binding: nil, clearWebSSO: false)
        }
        let binding = browser.binding ?? Secrets.randomToken()
        let now = context.clock.now()
        let pending = PendingAuthorization(request, mode: .browser, browserHash: Secrets.hash(binding), createdAt: now, expiresAt: now)
        let step = ConsentStep(subject: session.subject, userId: session.userId,
                               displayName: session.attributes["name"]?.stringValue ?? session.userId, sessionId: session.id,
                               amr: session.amr, separateSSO: separateSSO ? true : nil)
        let page = try await consent.hold(pending, consuming: nil, step: step, identity: nil)
        return AuthorizeResult(outcome: .consent(page), binding: binding, clearWebSSO: false)
    }

    private func issue(_ request: AuthorizationRequest, with session: LoginSession, rememberFor browser: BrowserContext?) async -> AuthorizeOutcome {
        do {
            let answer = try await authorizations.issueCode(request, session: session)
            await noteUse(of: session)
            guard browser != nil else { return .redirect(answer) }
            return .redirect(answer, sso: await sso.remember(session, client: request.client, ssoToken: nil))
        } catch let error as OAuthError {
            return .redirect(request.errorTarget.answer(for: error))
        } catch {
            return .redirect(request.errorTarget.answer(for: .wrapping(error, "SSO sign-in")))
        }
    }

    /// How often SSO reuse writes a session's last use (the account page shows it to the minute).
    static let lastUseResolution: TimeInterval = 60

    /// Notes an SSO reuse as the session's last use, at most once a minute per session, and
    /// never failing the sign-in over it.
    private func noteUse(of session: LoginSession) async {
        let now = context.clock.now()
        if let last = session.lastUsedAt, now.timeIntervalSince(last) < Self.lastUseResolution { return }
        do {
            try await sessionStore.touchSession(id: session.id, at: now)
        } catch {
            context.logger.warning("could not note a session's last use", metadata: ["error": "\(error)"])
        }
    }

    /// No existing sign-in applies: `prompt=none` fails, else the form or the identity source.
    private func startSignIn(_ request: AuthorizationRequest, prompts: Set<String>, browser: BrowserContext) async -> AuthorizeResult {
        let target = request.errorTarget
        func result(_ outcome: AuthorizeOutcome, binding: String? = nil) -> AuthorizeResult {
            AuthorizeResult(outcome: outcome, binding: binding, clearWebSSO: false)
        }
        if prompts.contains("none") {
            return result(.redirect(target.answer(for: OAuthError(.loginRequired, "The user is not signed in."))))
        }
        let binding = browser.binding ?? Secrets.randomToken()
        if request.client.authService.connector is any RedirectConnector {
            do {
                return result(.upstream(try await upstream.begin(request, browserBinding: binding, clientAddress: browser.clientAddress)),
                              binding: binding)
            } catch {
                return result(Self.outcome(for: error))
            }
        }
        guard request.client.authService.connector is any PasswordConnector else {
            return result(.redirect(target.answer(for: .unauthorizedClient("This auth service cannot sign in through the browser."))))
        }
        let id: String
        do {
            let mode: PendingAuthorization.Mode = request.client.service.customizedLogin.isPage ? .api : .browser
            id = try await authorizations.begin(request, mode: mode, browserBinding: binding, clientAddress: browser.clientAddress)
        } catch {
            return result(.errorPage(.wrapping(error, "begin authorization")))
        }
        if case .page(let pageURL) = request.client.service.customizedLogin {
            return result(.customPage(RedirectURL.build(pageURL.absoluteString, [
                ("temp_login_uri", tempLoginURI(id)), ("client_id", request.client.clientId),
                ("redirect_uri", request.redirectURI), ("login_hint", request.loginHint),
            ])), binding: binding)
        }
        return result(.loginForm(loginForm(id: id, client: request.client, binding: binding, username: request.loginHint, error: nil,
                                           uiLocales: request.uiLocales)),
                      binding: binding)
    }

    /// `POST /oauth/auth`, the automated authorization grant: the temp login URI, bound to no
    /// browser (signing in there never sets the SSO cookie).
    public func automatedGrant(_ parameters: OAuthParameters, basic: BasicCredentials?, clientAddress: String?) async throws -> String {
        let state = context.state
        if basic != nil || parameters["client_secret"] != nil || parameters["client_assertion"] != nil {
            _ = try await clients.authenticate(parameters, basic: basic, in: state)
        }
        let request: AuthorizationRequest
        do {
            request = try await AuthorizationRequest.parse(parameters, issuer: context.issuer) { try await clients.resolve($0, in: state) }
        } catch {
            // On this JSON API an unknown client is the usual 401 with `WWW-Authenticate: Basic`
            // (docs/protocol.md, "Errors"); the browser flow keeps 400 so that no Basic prompt ever
            // appears.
            if error.error.code == .invalidClient { throw OAuthError.invalidClient(error.error.errorDescription) }
            throw error.error
        }
        guard !request.client.service.requirePar else {
            throw OAuthError.invalidRequest("This app must push its authorization requests (PAR) first.")
        }
        guard request.client.authService.connector is any PasswordConnector else {
            throw OAuthError.invalidRequest("This auth service signs in through the browser; use GET /oauth/auth.")
        }
        return tempLoginURI(try await authorizations.begin(request, mode: .api, clientAddress: clientAddress))
    }

    public func tempLoginURI(_ id: String) -> String { "\(context.issuer)/oauth/authenticate/\(id)" }

    /// The hosted login form of pending authorization `id` in the browser holding `binding`.
    public func loginForm(id: String, client: ResolvedClient, binding: String, username: String?, error: PageText?,
                          uiLocales: String? = nil) -> LoginFormModel {
        LoginFormModel(heading: Self.signInHeading(client), action: tempLoginURI(id),
                       csrfToken: PendingAuthorizations.formToken(pendingId: id, browserBinding: binding),
                       username: username, error: error, look: client.look.reading(uiLocales),
                       qrStart: client.service.qrLogin == nil ? nil : "\(context.issuer)/oauth/qr/start/\(id)")
    }

    /// What the login form says the person signs in to: "Sign in to Expense Reports with
    /// Corporate sign-in" (the environment's `name`, the auth service's `name`), or what of it is
    /// configured.
    static func signInHeading(_ client: ResolvedClient) -> PageText {
        switch (client.appName, client.service.name) {
        case (let app?, let service?) where app != service: "Sign in to \(app) with \(service)"
        case (let app?, _): "Sign in to \(app)"
        case (nil, let service?): PageText(verbatim: service)
        case (nil, nil): "Sign in"
        }
    }

    /// The accounts this browser is signed in with for the client's auth service, each a link
    /// back to `/oauth/auth` with `login_hint` naming it, and "use another account" as the same
    /// request with `prompt=login`.
    private func accountChooser(_ request: AuthorizationRequest, sessions: [LoginSession], parameters: OAuthParameters) -> AccountChooserModel {
        let kept = parameters.names.sorted().filter { $0 != "prompt" && $0 != "login_hint" }
            .compactMap { name in parameters[name].map { (name, Optional($0)) } }
        let base = "\(context.issuer)/oauth/auth"
        var seen: Set<String> = []
        let accounts = sessions.filter { seen.insert($0.userId).inserted }.map { session in
            AccountChooserModel.Account(label: session.attributes["name"]?.stringValue ?? session.userId, detail: session.userId,
                                        link: RedirectURL.build(base, kept + [("login_hint", session.userId)]))
        }
        return AccountChooserModel(heading: request.client.service.name.map(PageText.init(verbatim:)) ?? "Choose an account", accounts: accounts,
                                   anotherAccount: RedirectURL.build(base, kept + [("prompt", "login")]),
                                   look: request.client.look.reading(request.uiLocales))
    }

    static func outcome(for failure: AuthorizationFailure) -> AuthorizeOutcome {
        switch failure {
        case .cannotRedirect(let error): .errorPage(error)
        case .redirect(let error, let target): .redirect(target.answer(for: error))
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
