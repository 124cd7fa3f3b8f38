import Foundation
import IdentityCore
import StoreContracts
import Tracing

/// Sign-in at an identity source the browser is sent to (SAML, OAuth 2.0, OIDC),
/// docs/protocol.md, "GET /oauth/auth"; docs/connectors/saml.md; docs/connectors/oauth2-oidc.md.
public struct UpstreamSignIn: Sendable {
    let context: EngineContext
    let pendingStore: any PendingAuthorizationStore
    let grantStore: any OneTimeGrantStore
    let authorizations: PendingAuthorizations
    let signIns: BrowserSignIn
    let rateLimiter: RateLimiter
    let secondFactors: SecondFactors
    let secondStep: SecondStepSignIn

    /// Starts a browser sign-in at the identity source for a redirect connector (SAML, OAuth2, OIDC).
    /// The relay state is the pending authorization's id; the connector's saved state is sealed.
    /// - Parameter browserBinding: the browser's binding cookie; the callback must present it again.
    public func begin(_ request: AuthorizationRequest, browserBinding: String?,
                      clientAddress: String? = nil) async throws(AuthorizationFailure) -> RedirectAction {
        let target = request.errorTarget
        guard let connector = request.client.authService.connector as? any RedirectConnector else {
            throw .redirect(.unauthorizedClient("This auth service does not sign in through the browser."), target)
        }
        let id = Secrets.randomToken()
        do {
            try await rateLimiter.admit(.authorization, clientAddress: clientAddress)
        } catch {
            throw .cannotRedirect(.wrapping(error, "rate limit"))
        }
        let start: RedirectLoginStart
        do {
            start = try await connector.beginLogin(RedirectLoginRequest(
                relayState: id, loginHint: request.loginHint, forceLogin: request.prompt?.contains("login") ?? false,
                scopes: request.scope.split(separator: " ").map(String.init)))
        } catch {
            throw .redirect(ConnectorErrors.oauthError(for: error), target)
        }
        do {
            let sealed = try context.vault.seal(start.savedState, VaultBindings.upstreamState(idHash: Secrets.hash(id)))
            _ = try await authorizations.begin(request, mode: .upstream, browserBinding: browserBinding, upstreamState: sealed, id: id)
        } catch {
            throw .redirect(.wrapping(error, "begin upstream login"), target)
        }
        return start.action
    }

    /// Finishes an upstream sign-in from the identity source's callback.
    ///
    /// Unknown, expired or replayed relay states, and callbacks (OAuth redirect or SAML POST)
    /// presented by another browser than the one that started the sign-in, are refused without
    /// redirecting anywhere (an attacker may have chosen the request; docs/security.md, rule 4).
    /// The SAML ACS first bounces a cross-site POST through a same-site one so that the binding
    /// cookie (SameSite=Lax) comes along; see the application's ACS controller.
    public func finish(kind: CallbackKind, parameters: [String: String],
                       browser: BrowserContext) async throws(AuthorizationFailure) -> BrowserSignInResult {
        let clientAddress = browser.clientAddress
        let relayName = kind == .oauthCallback ? "state" : "RelayState"
        guard let relayState = parameters[relayName], !relayState.isEmpty else {
            throw .cannotRedirect(.invalidRequest("The response carries no \(relayName): unsolicited responses are refused."))
        }
        let pending: PendingAuthorization
        let client: ResolvedClient
        let connector: any RedirectConnector
        do {
            guard let found = try await authorizations.find(id: relayState), found.mode == .upstream,
                  let foundClient = try await authorizations.client(for: found),
                  let foundConnector = foundClient.authService.connector as? any RedirectConnector,
                  foundConnector.callbackKind == kind else {
                throw AuthorizationFailure.cannotRedirect(.invalidRequest("Unknown or expired sign-in; start again from the app."))
            }
            pending = found
            client = foundClient
            connector = foundConnector
        } catch let failure as AuthorizationFailure { throw failure } catch {
            throw .cannotRedirect(.wrapping(error, "pending lookup"))
        }
        guard PendingAuthorizations.isStartingBrowser(pending, browser.binding) else {
            throw .cannotRedirect(.invalidRequest("This sign-in was started in another browser; start again from the app."))
        }
        let target = ErrorRedirect(pending, issuer: context.issuer)
        let idHash = Secrets.hash(relayState)
        let savedState: Data
        do {
            guard try await pendingStore.consumePending(idHash: idHash) else {
                throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in response was already used."))
            }
            savedState = try pending.upstreamState.map { try context.vault.open($0, VaultBindings.upstreamState(idHash: idHash)) } ?? Data()
        } catch let failure as AuthorizationFailure { throw failure } catch {
            throw .cannotRedirect(.wrapping(error, "upstream state"))
        }
        let result: LoginResult
        do {
            result = try await withSpan("connector.callback", ofKind: .client) { span in
                span.attributes["connector.type"] = client.service.provider.type
                return try await connector.finishLogin(RedirectCallback(parameters: parameters, savedState: savedState))
            }
        } catch {
            let oauthError = ConnectorErrors.oauthError(for: error)
            context.logger.warning("upstream sign-in failed", metadata: ["authService": "\(client.service.id)", "error": "\(oauthError.debug ?? oauthError.errorDescription)"])
            context.audit.signInFailed(client: client, address: clientAddress, user: nil,
                                       reason: oauthError.code == .temporarilyUnavailable ? "unavailable" : "error")
            throw .redirect(oauthError, target)
        }
        switch result {
        case .rejected(let rejection):
            // Connector messages name the check that failed, never credentials or assertion content.
            context.logger.notice("upstream sign-in refused", metadata: ["authService": "\(client.service.id)", "reason": "\(rejection.message)"])
            context.audit.signInFailed(client: client, address: clientAddress, user: nil, reason: "rejected", detail: rejection.message)
            throw .redirect(.accessDenied(rejection.message), target)
        case .challenge:
            context.audit.signInFailed(client: client, address: clientAddress, user: nil, reason: "error", detail: "challenge from a redirect connector")
            throw .redirect(.upstreamNonsense("The identity source asked a question this kind of sign-in cannot show."), target)
        case .authenticated(let identity):
            do {
                if let once = identity.oneTimeUse {
                    let first = try await grantStore.insertOneTimeGrantIfAbsent(hash: Secrets.hash("once:" + once.id), sealed: Data(), expiresAt: once.expiresAt)
                    guard first else {
                        context.audit.signInFailed(client: client, address: clientAddress, user: identity.userId, reason: "replayed")
                        throw OAuthError.accessDenied("This sign-in response was already used.")
                    }
                }
                let need = try await secondFactors.need(SecondFactors.owner(userId: identity.userId, client: client), client: client, amr: [],
                                                        stepUp: pending.stepUp)
                if need != .none {
                    var purpose = SecondStep.Purpose.verify
                    if case .enrol = need { purpose = .enrol }
                    let step = SecondStep(purpose: purpose, userId: identity.userId, username: identity.userId, sealedIdentity: nil, amr: [])
                    return .secondStep(try await secondStep.hold(pending, consuming: nil, step: step, identity: identity))
                }
                return try await signIns.complete(pending, consuming: nil, client: client, identity: identity, amr: [],
                                                  browser: browser, bound: true)
            } catch let failure as AuthorizationFailure {
                throw failure
            } catch let error as OAuthError {
                throw .redirect(error, target)
            } catch {
                throw .redirect(.wrapping(error, "sign-in completion"), target)
            }
        }
    }
}
