import Foundation
import IdentityCore
import StoreContracts

/// What the login page or temp login URI answers after a password attempt.
public enum PasswordSignInOutcome: Sendable {
    /// Definitively failed (API mode): back to the client with this error.
    case redirect(ClientAnswer)
    /// Signed in, or on to the second step.
    case finished(BrowserSignInResult)
    /// Show the login form again with this message (hosted login page only).
    case retry(pendingId: String, message: String)
}

/// A POST to the temp login URI or the hosted login form (docs/protocol.md, "GET /oauth/auth" and
/// "The temp login URI").
public struct PasswordSignIn: Sendable {
    let context: EngineContext
    let pendingStore: any PendingAuthorizationStore
    let authorizations: PendingAuthorizations
    let signIns: BrowserSignIn
    let checker: PasswordChecker
    let secondFactors: SecondFactors
    let secondStep: SecondStepSignIn

    static let maxAttemptsPerPage = 10

    /// Handles a POST to the temp login URI / login form (docs/protocol.md, "GET /oauth/auth" and
    /// "The temp login URI").
    ///
    /// Browser mode checks the form's CSRF token, which is bound to this pending authorization and
    /// to the binding cookie of the browser that started it, and lets the person try again with a
    /// message in words; API mode is single use and answers with a redirect carrying `error` on
    /// failure. The completion says whether the browser is the one that started the sign-in (only
    /// then may it get the SSO cookie, docs/security.md, rule 4).
    /// - Parameters:
    ///   - csrfToken: the form's `csrf_token` field.
    ///   - browser: the browser's cookies (its binding cookie, its SSO cookie), address and
    ///     User-Agent (kept in a browser sign-in's session, for the account page).
    public func signIn(pendingId: String, parameters: OAuthParameters, csrfToken: String?,
                       browser: BrowserContext = BrowserContext()) async throws(AuthorizationFailure) -> PasswordSignInOutcome {
        let browserBinding = browser.binding, clientAddress = browser.clientAddress
        let pending: PendingAuthorization
        do {
            guard let found = try await authorizations.find(id: pendingId) else {
                throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in link has expired or was already used. Start again from the app."))
            }
            pending = found
        } catch let failure as AuthorizationFailure { throw failure } catch {
            throw .cannotRedirect(.wrapping(error, "pending lookup"))
        }
        let target = ErrorRedirect(pending, issuer: context.issuer)
        if let clientId = parameters["client_id"], clientId != pending.clientId,
           context.state.directory.resolve(clientId).map({ $0.appKey != pending.appKey || $0.service.id != pending.authServiceId }) ?? true {
            throw .cannotRedirect(.invalidRequest("client_id does not match the authorization request."))
        }
        if let redirectURI = parameters["redirect_uri"], !RedirectURL.same(redirectURI, pending.redirectURI) {
            throw .cannotRedirect(.invalidRequest("redirect_uri does not match the authorization request."))
        }
        let fromStartingBrowser = PendingAuthorizations.isStartingBrowser(pending, browserBinding)
        if pending.mode == .browser {
            guard fromStartingBrowser, let csrfToken, let browserBinding,
                  Secrets.constantTimeEquals(csrfToken, PendingAuthorizations.formToken(pendingId: pendingId, browserBinding: browserBinding)) else {
                throw .cannotRedirect(.invalidRequest("The sign-in form is no longer valid. Reload the page and try again."))
            }
        } else if pending.mode == .upstream {
            throw .cannotRedirect(.invalidRequest("This auth service does not sign in with a password."))
        }
        let resolved: ResolvedClient?
        do { resolved = try await authorizations.client(for: pending) } catch {
            throw .redirect(.wrapping(error, "client lookup"), target)
        }
        guard let client = resolved else {
            throw .redirect(.unauthorizedClient("The client is no longer configured."), target)
        }
        guard client.authService.connector is any PasswordConnector else {
            throw .redirect(.unauthorizedClient("This auth service does not sign in with a password."), target)
        }
        guard let username = parameters["username"], let password = parameters["password"] else {
            return try await refuse(pendingId, pending, target, .invalidRequest("Enter your username and password."),
                                    username: parameters["username"])
        }
        let otp = parameters["otp"]
        let credentials = PasswordCredentials(username: username, password: password,
                                              scopes: pending.scope.split(separator: " ").map(String.init),
                                              otp: pending.mode == .api ? otp : nil)
        let attempt: Result<FirstFactor, OAuthError>
        do {
            attempt = try await checker.attempt(credentials, client: client, clientAddress: clientAddress, deferringReset: true)
        } catch {
            return try await refuse(pendingId, pending, target, ConnectorErrors.oauthError(for: error), username: username)
        }
        let idHash = Secrets.hash(pendingId)
        do {
            switch attempt {
            case .failure(let refusal):
                return try await refuse(pendingId, pending, target, refusal, username: username)
            case .success(.challenge(let challenge)):
                guard pending.mode == .browser else {
                    // API mode: the client repeats the request with the answer as `otp`.
                    return try await refuse(pendingId, pending, target, .mfaRequired(challenge.message))
                }
                let step = SecondStep(purpose: .challenge, userId: username, username: username, sealedIdentity: nil, amr: ["pwd"])
                return .finished(.secondStep(try await secondStep.hold(pending, consuming: idHash, step: step, identity: nil,
                                                                       challenge: challenge)))
            case .success(.identity(let identity, let reset)):
                // The throttle's reset for the correct password rides in the completing write;
                // every other way out of here settles it on its own (PendingThrottleReset).
                do {
                    return try await afterPassword(identity, username: username, pendingId: pendingId, pending: pending,
                                                   target: target, client: client, otp: otp, fromStartingBrowser: fromStartingBrowser,
                                                   browser: browser, reset: reset)
                } catch {
                    try? await reset?.settle()
                    throw error
                }
            }
        } catch let failure as AuthorizationFailure {
            throw failure
        } catch let error as OAuthError {
            throw .redirect(error, target)
        } catch {
            throw .redirect(.wrapping(error, "sign-in completion"), target)
        }
    }

    /// The password was right: a second step, the API's one-time code, or the completion. Only
    /// the completion carries `reset` in its write; the other ways settle it first, before a
    /// second factor counts its own attempt against the same address.
    private func afterPassword(_ identity: ConnectorIdentity, username: String, pendingId: String, pending: PendingAuthorization,
                               target: ErrorRedirect, client: ResolvedClient, otp: String?, fromStartingBrowser: Bool,
                               browser: BrowserContext, reset: PendingThrottleReset?) async throws -> PasswordSignInOutcome {
        let idHash = Secrets.hash(pendingId)
        let need = try await secondFactors.need(SecondFactors.owner(userId: identity.userId, client: client), client: client, amr: ["pwd"],
                                                stepUp: pending.stepUp)
        guard need != .none else {
            return .finished(try await signIns.complete(pending, consuming: idHash, client: client, identity: identity,
                                                        amr: ["pwd"], browser: browser, bound: fromStartingBrowser,
                                                        throttleReset: reset))
        }
        try await reset?.settle()
        if pending.mode == .browser {
            var purpose = SecondStep.Purpose.verify
            if case .enrol = need { purpose = .enrol }
            let step = SecondStep(purpose: purpose, userId: identity.userId, username: username, sealedIdentity: nil, amr: ["pwd"])
            return .finished(.secondStep(try await secondStep.hold(pending, consuming: idHash, step: step, identity: identity)))
        }
        let amr: [String]
        do {
            amr = try await secondFactors.checkAPI(need, client: client, amr: ["pwd"], otp: otp, address: browser.clientAddress)
        } catch let error as OAuthError where error.code == .mfaRequired || error.code == .accessDenied {
            return try await refuse(pendingId, pending, target, error)
        }
        return .finished(try await signIns.complete(pending, consuming: idHash, client: client, identity: identity,
                                                    amr: amr, browser: browser, bound: fromStartingBrowser))
    }

    /// A failed attempt: the login page shows the message again, with the username as typed
    /// filled in (kept as the page's `loginHint`); the API gets a redirect with `error`.
    private func refuse(_ pendingId: String, _ pending: PendingAuthorization, _ target: ErrorRedirect,
                        _ error: OAuthError, username: String? = nil) async throws(AuthorizationFailure) -> PasswordSignInOutcome {
        let idHash = Secrets.hash(pendingId)
        do {
            if pending.mode == .browser && pending.failedAttempts + 1 < Self.maxAttemptsPerPage {
                var updated = pending
                updated.failedAttempts += 1
                updated.lastError = error.errorDescription
                if let username, !username.isEmpty, username.utf8.count <= 256 { updated.loginHint = username }
                try await pendingStore.updatePending(updated, idHash: idHash)
                return .retry(pendingId: pendingId, message: error.errorDescription)
            }
            guard try await pendingStore.consumePending(idHash: idHash) else {
                throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in link was already used."))
            }
        } catch let failure as AuthorizationFailure { throw failure } catch {
            throw .cannotRedirect(.wrapping(error, "pending update"))
        }
        return .redirect(target.answer(for: error))
    }
}
