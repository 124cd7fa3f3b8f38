import Foundation
import IdentityConfig
import IdentityCore
import OneTimePassword
import StoreContracts

/// The second step of a browser sign-in (docs/mfa.md): after the first factor, the person
/// answers an AuthLink challenge, proves a second factor, or enrols one, on
/// `/oauth/mfa/{id}`. Each step is a pending authorization of its own (a fresh id: the first
/// factor's is consumed), bound to the browser that started the sign-in; forms carry the CSRF
/// token bound to both. What the first factor yielded stays sealed until the sign-in completes.
public struct SecondStepSignIn: Sendable {
    let context: EngineContext
    let pendingStore: any PendingAuthorizationStore
    let sessionStore: any SessionStore
    let mfaStore: any MFAStore
    let authorizations: PendingAuthorizations
    let signIns: BrowserSignIn
    let factors: SecondFactors
    let checker: PasswordChecker

    /// AuthLink challenge rounds at most.
    static let maxChallengeRounds = 3

    public func pageURL(_ id: String) -> String { "\(context.issuer)/oauth/mfa/\(id)" }

    /// Starts a second step for `pending` (in the browser it is bound to): stores it under a new
    /// id, consuming `consuming` (the first factor's id hash) when given. Returns the page URL.
    func hold(_ pending: PendingAuthorization, consuming: String?, step: SecondStep, identity: ConnectorIdentity?,
              challenge: LoginChallenge? = nil) async throws -> String {
        let id = Secrets.randomToken()
        let idHash = Secrets.hash(id)
        var step = step
        if let identity {
            step.sealedIdentity = try HeldIdentity.seal(identity, vault: context.vault, binding: VaultBindings.secondStep("identity", idHash: idHash))
        }
        if let challenge { step.challenge = try sealed(challenge, rounds: 0, idHash: idHash) }
        var next = pending.nextBrowserPage(at: context.clock.now())
        next.secondStep = step
        if let consuming {
            guard try await pendingStore.consumePending(idHash: consuming) else {
                throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in was already completed."))
            }
        }
        try await pendingStore.insertPending(next, idHash: idHash)
        return pageURL(id)
    }

    func sealed(_ challenge: LoginChallenge, rounds: Int, idHash: String) throws -> SecondStep.Challenge {
        let state = try context.vault.seal(Data(challenge.state.utf8), VaultBindings.secondStep("challenge", idHash: idHash))
        return SecondStep.Challenge(message: challenge.message, input: challenge.input, sealedState: state, rounds: rounds)
    }

    /// Asks an SSO session that lacks `mfa` for a second factor before it signs `request` in
    /// (`mfa.mode: required`, or the user has a factor). Returns the page URL.
    func stepUp(_ request: AuthorizationRequest, session: LoginSession, need: SecondFactorNeed, browserBinding: String) async throws -> String {
        let now = context.clock.now()
        let pending = PendingAuthorization(request, mode: .browser, browserHash: Secrets.hash(browserBinding), createdAt: now, expiresAt: now)
        var purpose = SecondStep.Purpose.verify
        if case .enrol = need { purpose = .enrol }
        let step = SecondStep(purpose: purpose, userId: session.userId, username: session.userId, sealedIdentity: nil,
                              sessionId: session.id, amr: session.amr)
        return try await hold(pending, consuming: nil, step: step, identity: nil)
    }

    /// A loaded second step: the pending authorization, its id hash, client and step.
    struct Loaded {
        var id: String
        var idHash: String
        var pending: PendingAuthorization
        var client: ResolvedClient
        var step: SecondStep
        var binding: String
        var owner: MFAOwner
        /// The browser answering: its address and User-Agent are kept in the session a completion
        /// starts (the account page), its SSO cookie is replaced by the completion's.
        var browser: BrowserContext
        var clientAddress: String? { browser.clientAddress }
        /// Where an error goes: the client's redirect URI, named by this broker (`issuer`).
        var issuer: String
        var target: ErrorRedirect { ErrorRedirect(pending, issuer: issuer) }
    }

    static let expired = AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in page has expired. Start again from the app."))

    /// The second step `id` for `browser` (it must hold the binding cookie of the browser that
    /// started the sign-in); `csrfToken` must match when `checkToken`.
    func load(_ id: String, browser: BrowserContext, csrfToken: String?, checkToken: Bool) async throws(AuthorizationFailure) -> Loaded {
        guard id.utf8.count <= 128, let binding = browser.binding else { throw Self.expired }
        let idHash = Secrets.hash(id)
        let found: PendingAuthorization?
        do { found = try await pendingStore.pending(idHash: idHash) } catch {
            throw .cannotRedirect(.wrapping(error, "second step"))
        }
        guard let pending = found, context.clock.now() < pending.expiresAt, pending.mode == .browser, let step = pending.secondStep,
              PendingAuthorizations.isStartingBrowser(pending, binding) else { throw Self.expired }
        if checkToken {
            guard let csrfToken, Secrets.constantTimeEquals(csrfToken, PendingAuthorizations.formToken(pendingId: id, browserBinding: binding)) else {
                throw .cannotRedirect(.invalidRequest("The form is no longer valid. Reload the page and try again."))
            }
        }
        let client: ResolvedClient?
        do { client = try await authorizations.client(for: pending) } catch {
            throw .cannotRedirect(.wrapping(error, "client lookup"))
        }
        guard let client else {
            throw .redirect(.unauthorizedClient("The client is no longer configured."), ErrorRedirect(pending, issuer: context.issuer))
        }
        return Loaded(id: id, idHash: idHash, pending: pending, client: client, step: step, binding: binding,
                      owner: SecondFactors.owner(userId: step.userId, client: client), browser: browser, issuer: context.issuer)
    }

    /// Saves the step's new state.
    func save(_ loaded: Loaded, _ step: SecondStep) async throws {
        var pending = loaded.pending
        pending.secondStep = step
        try await pendingStore.updatePending(pending, idHash: loaded.idHash)
    }

    /// Finishes the sign-in with `added` proved on top of the first factor: a new session for a
    /// held identity, or the stepped-up SSO session with its raised `amr`.
    func complete(_ loaded: Loaded, adding added: [String]) async throws(AuthorizationFailure) -> SecondStepOutcome {
        var amr = loaded.step.amr
        for value in added + ["mfa"] where !amr.contains(value) { amr.append(value) }
        do {
            if let sessionId = loaded.step.sessionId {
                guard var session = try await sessionStore.session(id: sessionId), session.isActive(at: context.clock.now()) else {
                    throw AuthorizationFailure.redirect(.accessDenied("The sign-in has ended; sign in again."), loaded.target)
                }
                try await mfaStore.setSessionAMR(sessionId: sessionId, amr: amr)
                session.amr = amr
                return .finished(try await signIns.complete(loaded.pending, consuming: loaded.idHash, existing: session,
                                                            client: loaded.client, browser: loaded.browser))
            }
            guard let sealed = loaded.step.sealedIdentity else { throw Self.expired }
            let identity = try HeldIdentity.open(sealed, vault: context.vault, binding: VaultBindings.secondStep("identity", idHash: loaded.idHash))
            return .finished(try await signIns.complete(loaded.pending, consuming: loaded.idHash, client: loaded.client,
                                                        identity: identity, amr: amr, browser: loaded.browser, bound: true))
        } catch let failure as AuthorizationFailure {
            throw failure
        } catch let error as OAuthError {
            throw .redirect(error, loaded.target)
        } catch {
            throw .redirect(.wrapping(error, "second step completion"), loaded.target)
        }
    }

    /// A failed attempt: the page again with the reason in words and the code field, for as long as
    /// the page lives. Guessing is bounded by the login throttle, per user and address across
    /// pages and instances (docs/mfa.md, "Throttling"), which also words the refusal once it holds
    /// the user back; ending the page as well would only send a person whose phone's clock is off
    /// back to the app.
    func failed(_ loaded: Loaded, _ error: OAuthError) async throws(AuthorizationFailure) -> SecondStepOutcome {
        var step = loaded.step
        step.message = error.errorDescription
        do {
            try await save(loaded, step)
        } catch {
            throw .cannotRedirect(.wrapping(error, "second step"))
        }
        var updated = loaded
        updated.step = step
        do {
            return .page(try await model(updated), status: error.status == 429 ? 429 : 400)
        } catch {
            throw Self.failure(error)
        }
    }
}
