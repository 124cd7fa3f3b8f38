import Foundation
import IdentityCore
import StoreContracts

/// The account page's own sign-in between its start and its callback, sealed in the
/// `idc_account` cookie of the browser that started it.
struct AccountFlow: Codable {
    /// Where the person goes after signing in.
    enum Then: String, Codable {
        case account, authenticator, passkey
    }

    var verifier: String
    var state: String
    var clientId: String
    var then: Then
    /// A sign-in again for a factor change (the page then says the person may change them now).
    var reauthenticate: Bool
    var expiresAt: Date
}

/// The broker signs the person in as its own client (docs/account.md, "Signing in"): an
/// authorization for the auth service's client whose redirect URI is `<issuer>/account/callback`,
/// with PKCE whose verifier only this browser's sealed `idc_account` cookie holds. The request is
/// built here, never read from a URL, so the callback cannot become a way to send codes
/// elsewhere; the token endpoint refuses its codes; and a code that reaches the callback in
/// another browser (or without its verifier) is worth nothing. MFA applies as on any sign-in.
public struct AccountSignIn: Sendable {
    let context: EngineContext
    let codeStore: any AuthorizationCodeStore
    let sessionStore: any SessionStore
    let sso: SSOSessions
    let authorize: AuthorizeEndpoint

    /// How long a started sign-in can come back.
    public static let flowLifetime: TimeInterval = 900

    var urls: AccountURLs { AccountURLs(issuer: context.issuer) }
    var own: OwnSignIn { OwnSignIn(context: context, codeStore: codeStore, sessionStore: sessionStore) }

    /// Starts the sign-in: the login form, the identity source, or (SSO that needs a second
    /// factor) the second step. `reauthenticate` asks for the credentials again (`prompt=login`).
    func signIn(_ client: ResolvedClient, _ request: AccountRequest, then: AccountFlow.Then, reauthenticate: Bool,
                hint: String? = nil) async -> AccountResult {
        let verifier = Secrets.randomToken()
        let state = Secrets.randomToken(bytes: 16)
        let authorization = AuthorizationRequest(
            client: client, redirectURI: urls.callback, scope: "openid", state: state, nonce: nil,
            codeChallenge: PKCE.challenge(for: verifier), prompt: reauthenticate ? "login" : nil, loginHint: hint,
            resources: nil, maxAge: nil, claims: nil, online: true, issuer: context.issuer)
        let flow = AccountFlow(verifier: verifier, state: state, clientId: client.clientId, then: then, reauthenticate: reauthenticate,
                               expiresAt: context.clock.now().addingTimeInterval(Self.flowLifetime))
        let sealed: String
        do {
            sealed = try own.seal(flow, VaultBindings.accountFlow())
        } catch {
            return AccountResult(.errorPage(.wrapping(error, "account sign-in")))
        }
        let browser = BrowserContext(ssoToken: request.ssoToken, webSSOValue: nil, binding: request.binding,
                                     clientAddress: request.clientAddress)
        let result = await authorize.proceed(authorization, parameters: OAuthParameters(), browser: browser)
        return AccountResult(.signIn(result.outcome), binding: result.binding, flow: sealed)
    }

    /// `GET /account/callback`: the sign-in came back. Only with the `idc_account` cookie of the
    /// browser that started it (state and verifier): the code is redeemed here (single use, PKCE)
    /// and the browser gets a fresh SSO cookie for the session, then goes on to the page.
    ///
    /// A callback whose state is not this browser's flow's changes nothing (the flow stays, so a
    /// forged link cannot abort a sign-in in progress); one that matched ends the flow whatever
    /// its outcome.
    public func callback(_ parameters: OAuthParameters, request: AccountRequest) async -> AccountResult {
        let flow = openFlow(request.flow)
        guard let flow, let state = parameters["state"], Secrets.constantTimeEquals(state, flow.state) else {
            return AccountResult(.errorPage(.invalidRequest("This sign-in to your account page has expired or was started in another "
                + "browser. Open the account page again.")), clearFlow: request.flow != nil && flow == nil)
        }
        var result = await AccountResult.answering {
            if let error = parameters["error"] {
                // The browser's own sign-in failed (the state matched): say why.
                let description = parameters["error_description"] ?? "The sign-in did not complete."
                return AccountResult(.errorPage(OAuthError(OAuthError.Code(rawValue: String(error.prefix(64))), description)))
            }
            let session = try await redeem(parameters["code"], flow: flow)
            guard let client = context.state.directory.resolve(flow.clientId) else { throw OAuthError(.invalidClient, "Unknown client.", status: 400) }
            let cookie = await sso.remember(session, client: client, ssoToken: request.ssoToken)
            let target: String
            switch flow.then {
            case .account: target = urls.page(flow.clientId, [("notice", flow.reauthenticate ? "signed_in_again" : nil)])
            case .authenticator: target = urls.page(flow.clientId, path: "/authenticator")
            case .passkey: target = urls.page(flow.clientId, path: "/passkeys/new")
            }
            return AccountResult(.redirect(target), sso: cookie)
        }
        result.clearFlow = true
        return result
    }

    private func openFlow(_ sealed: String?) -> AccountFlow? {
        guard let flow = own.open(sealed, as: AccountFlow.self, VaultBindings.accountFlow()), context.clock.now() < flow.expiresAt else {
            return nil
        }
        return flow
    }

    /// Redeems the code the callback received (see ``OwnSignIn/redeem``).
    private func redeem(_ value: String?, flow: AccountFlow) async throws -> LoginSession {
        try await own.redeem(value, redirectURI: urls.callback, verifier: flow.verifier, clientId: flow.clientId, purpose: "account",
                             refused: .invalidRequest("The sign-in could not be completed. Open the account page again."))
    }
}
