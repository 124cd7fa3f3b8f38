import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// The user's own account page (docs/account.md): `GET /account?client_id=C`, the broker's own
/// sign-in coming back at `GET /account/callback`, the set-up pages, and the form posts that end
/// sign-ins and change second factors. Every route takes `client_id` in the query string. The
/// controller reads cookies and forms and renders what `AccountEndpoint` decided.
struct AccountController {
    let services: AppServices

    /// The account page's own sign-in in progress (sealed; `__Host-idc_account` with https).
    static let flowCookieBase = "idc_account"
    /// The largest passkey answer read (an attestation object is at most 64 KiB).
    static let maxPasskeyBody = 256 * 1024

    private var account: AccountEndpoint { services.engine.account }
    private var cookies: BrowserCookies { services.cookies }

    typealias PageAction = @Sendable (AccountEndpoint, AccountRequest, OAuthParameters) async -> AccountResult
    typealias FormAction = @Sendable (AccountEndpoint, AccountRequest, OAuthParameters) async -> AccountResult

    func register(on router: Router<AppRequestContext>) {
        page(router, "account", allow: [.get]) { await $0.show($1, notice: $2["notice"], codes: $2["codes"]) }
        page(router, "account/callback", allow: [.get]) { await $0.signIn.callback($2, request: $1) }
        page(router, "account/authenticator", allow: [.get, .post]) { account, request, _ in await account.authenticator.page(request) }
        form(router, "account/authenticator", refuseOthers: false) { await $0.authenticator.confirm($1, form: $2) }
        page(router, "account/passkeys/new", allow: [.get]) { account, request, _ in await account.passkeys.page(request) }
        router.refuseOtherMethods("account/passkeys", allow: [.post])
        router.post("account/passkeys") { request, context in try await addPasskey(request, context) }
        form(router, "account/browsers/sign-out") { await $0.sessions.signOutBrowser($1, form: $2) }
        form(router, "account/apps/remove") { await $0.sessions.removeApp($1, form: $2) }
        form(router, "account/consents/remove") { await $0.consents.removeAccess($1, form: $2) }
        form(router, "account/shared-sign-ins/sign-out") { await $0.sessions.signOutSharedSignIn($1, form: $2) }
        form(router, "account/devices/remove") { await $0.sessions.removeDevice($1, form: $2) }
        form(router, "account/sign-out-everywhere") { await $0.sessions.signOutEverywhere($1, form: $2) }
        form(router, "account/authenticator/remove") { await $0.authenticator.remove($1, form: $2) }
        form(router, "account/passkeys/rename") { await $0.passkeys.rename($1, form: $2) }
        form(router, "account/passkeys/remove") { await $0.passkeys.remove($1, form: $2) }
        form(router, "account/recovery-codes") { await $0.authenticator.renewRecoveryCodes($1, form: $2) }
    }

    /// A GET page: the query and cookies in, the outcome rendered.
    private func page(_ router: Router<AppRequestContext>, _ path: RouterPath, allow: [HTTPRequest.Method], _ action: @escaping PageAction) {
        router.refuseOtherMethods(path, allow: allow)
        router.get(path) { request, context in
            let parsed: (AccountRequest, OAuthParameters)
            do { parsed = try accountRequest(request, context) } catch { return services.pages.errorPage(Self.oauthError(error)) }
            return render(await action(account, parsed.0, parsed.1))
        }
    }

    /// A form POST: the form's fields in, the outcome rendered.
    private func form(_ router: Router<AppRequestContext>, _ path: RouterPath, refuseOthers: Bool = true, _ action: @escaping FormAction) {
        if refuseOthers { router.refuseOtherMethods(path, allow: [.post]) }
        router.post(path) { request, context in
            let parsed: AccountRequest
            let fields: OAuthParameters
            do {
                parsed = try accountRequest(request, context).0
                fields = try await RequestParameters.body(request, context: context)
            } catch {
                return services.pages.errorPage(Self.oauthError(error))
            }
            return render(await action(account, parsed, fields))
        }
    }

    /// The browser's cookies and the query (`client_id` and the page's own parameters).
    private func accountRequest(_ request: Request, _ context: AppRequestContext) throws -> (AccountRequest, OAuthParameters) {
        let query = try RequestParameters.query(request)
        return (AccountRequest(clientId: query["client_id"], ssoToken: cookies.ssoToken(request), binding: cookies.existingBinding(request),
                               flow: request.cookies[cookies.name(Self.flowCookieBase)]?.value,
                               clientAddress: services.clientAddress(request, context), userAgent: request.headers[.userAgent]), query)
    }

    /// `POST /account/passkeys`: the page script's JSON; answers JSON (`redirect` or `error`).
    private func addPasskey(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let parsed: AccountRequest
        do { parsed = try accountRequest(request, context).0 } catch {
            return Responses.json(["error": Self.oauthError(error).errorDescription], status: .badRequest)
        }
        var request = request
        guard let buffer = try? await request.collectBody(upTo: Self.maxPasskeyBody) else {
            return Responses.json(["error": "The passkey answer is too large."], status: .contentTooLarge)
        }
        let answer = await account.passkeys.add(parsed, body: Data(buffer: buffer))
        var body: [String: String] = [:]
        body["redirect"] = answer.redirect
        body["error"] = answer.error
        return Responses.json(body, status: .init(code: answer.status))
    }

    /// Renders an outcome with the cookies it changes.
    private func render(_ result: AccountResult) -> Response {
        let pages = services.pages
        let base = services.issuer
        var response: Response
        switch result.outcome {
        case .page(let model, let status): response = pages.account(model, base: base, status: .init(code: status))
        case .authenticatorSetup(let model, let status): response = pages.accountAuthenticator(model, base: base, status: .init(code: status))
        case .passkeySetup(let model): response = pages.accountPasskey(model, base: base)
        case .signIn(let outcome): response = AuthorizeController(services: services).render(outcome)
        case .redirect(let location): response = Responses.redirect(location, status: .seeOther)
        case .signedOut(let message, let again, let look): response = pages.accountSignedOut(message: message, signInAgain: again, look: look)
        case .errorPage(let error): response = pages.errorPage(error)
        }
        if let binding = result.binding { cookies.setBinding(binding, on: &response) }
        cookies.setFlow(Self.flowCookieBase, result.flow, maxAge: Int(AccountEndpoint.flowLifetime), clear: result.clearFlow,
                        on: &response)
        cookies.setSSO(result.sso, on: &response)
        return response
    }

    static func oauthError(_ error: any Error) -> OAuthError {
        (error as? OAuthError) ?? .invalidRequest("The request could not be read.")
    }
}
