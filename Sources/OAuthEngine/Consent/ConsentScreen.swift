import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// The consent screen at `/oauth/consent/{id}` (docs/consent.md): shows the user what the app
/// asks for, and on Allow records what they granted and finishes the sign-in with only those
/// scopes; on Deny the app gets `access_denied`. The page is bound to the browser that started
/// the sign-in and its form to that browser and the pending authorization (docs/security.md,
/// rule 4).
public struct ConsentScreen: Sendable {
    let context: EngineContext
    let pendingStore: any PendingAuthorizationStore
    let consentStore: any ConsentStore
    let sessionStore: any SessionStore
    let authorizations: PendingAuthorizations
    let signIns: BrowserSignIn
    let permissionStore: any PermissionStore
    let permissions: PermissionNotifications

    struct Loaded {
        var idHash: String
        var pending: PendingAuthorization
        var step: ConsentStep
        var client: ResolvedClient
        var target: ErrorRedirect
        /// The back end's permission request this sign-in answers, still pending.
        var permission: PermissionRequest?
    }

    static let expired = AuthorizationFailure.cannotRedirect(.invalidRequest("This consent page has expired. Start again from the app."))

    /// `GET /oauth/consent/{id}`.
    public func show(_ id: String, browser: BrowserContext) async throws(AuthorizationFailure) -> ConsentPageModel {
        let loaded = try await load(id, browser: browser)
        let binding = browser.binding ?? ""
        let client = loaded.client
        let settings = client.service.consent
        let scopes = ConsentGate.askedScopes(scope: loaded.pending.scope, claims: loaded.pending.claims).map { scope in
            ConsentPageModel.Scope(name: scope, description: ScopeWords.describe(scope, overrides: settings?.scopeDescriptions ?? [:]),
                                   required: ConsentGate.requiredScopes.contains(scope))
        }
        return ConsentPageModel(
            appName: client.environment.name ?? client.service.name ?? client.clientId,
            serviceName: client.service.name ?? client.service.id,
            logo: settings?.logoURI, homepage: settings?.clientURI, policy: settings?.policyURI, termsOfService: settings?.tosURI,
            account: loaded.step.displayName, scopes: scopes, resources: loaded.pending.resources ?? [],
            action: "\(context.issuer)/oauth/consent/\(id)",
            csrfToken: PendingAuthorizations.formToken(pendingId: id, browserBinding: binding),
            look: client.look.reading(loaded.pending.uiLocales))
    }

    /// `POST /oauth/consent/{id}`: `decision` `allow` or `deny`, `csrf_token`, and `grant_<scope>`
    /// for each optional scope left ticked.
    public func decide(_ id: String, browser: BrowserContext, form: OAuthParameters) async throws(AuthorizationFailure) -> ConsentOutcome {
        let loaded = try await load(id, browser: browser)
        guard let token = form["csrf_token"], let binding = browser.binding,
              Secrets.constantTimeEquals(token, PendingAuthorizations.formToken(pendingId: id, browserBinding: binding)) else {
            throw .cannotRedirect(.invalidRequest("The form is no longer valid. Reload the page and try again."))
        }
        let clientKey = ConsentGate.clientKey(loaded.client)
        switch form["decision"] {
        case "deny":
            do {
                guard try await pendingStore.consumePending(idHash: loaded.idHash) else { throw Self.expired }
            } catch let failure as AuthorizationFailure { throw failure } catch {
                throw .cannotRedirect(.wrapping(error, "consent"))
            }
            if let permission = loaded.permission {
                await permissions.settle(permission, to: .denied, at: context.clock.now(), subject: loaded.step.subject)
            }
            context.audit.record(AuditEvent(.consentDenied, ["client": clientKey, "subject": loaded.step.subject]))
            return .redirect(loaded.target.answer(for: .accessDenied("The user did not allow this app.")))
        case "allow":
            let requested = ConsentGate.askedScopes(scope: loaded.pending.scope, claims: loaded.pending.claims)
            let granted = requested.filter { ConsentGate.requiredScopes.contains($0) || form["grant_\($0)"] != nil }
            do {
                if let permission = loaded.permission {
                    guard await permissions.settle(permission, to: .granted, at: context.clock.now(), subject: loaded.step.subject,
                                                   scopes: granted) != nil else {
                        throw AuthorizationFailure.cannotRedirect(.invalidRequest("This permission request was already answered."))
                    }
                }
                try await record(granted, requested: requested, loaded: loaded, clientKey: clientKey)
                var pending = loaded.pending
                pending.scope = loaded.pending.scope.split(separator: " ").map(String.init).filter(granted.contains).joined(separator: " ")
                pending.claims = ConsentGate.narrow(pending.claims, to: granted)
                return .finished(.signedIn(try await finish(pending, loaded: loaded, browser: browser)))
            } catch let failure as AuthorizationFailure {
                throw failure
            } catch let error as OAuthError {
                throw .redirect(error, loaded.target)
            } catch {
                throw .redirect(.wrapping(error, "consent"), loaded.target)
            }
        default:
            throw .cannotRedirect(.invalidRequest("Choose Allow or Deny."))
        }
    }

    /// Keeps the user's decision: the scopes granted now, plus those granted before and not asked
    /// about this time (a scope the user unticked now is no longer granted).
    private func record(_ granted: [String], requested: [String], loaded: Loaded, clientKey: String) async throws {
        let now = context.clock.now()
        let earlier = try await consentStore.consent(subject: loaded.step.subject, clientId: clientKey)
        let kept = (earlier?.scopes ?? []).filter { !requested.contains($0) }
        try await consentStore.saveConsent(ConsentRecord(subject: loaded.step.subject, clientId: clientKey, scopes: kept + granted,
                                                         grantedAt: earlier?.grantedAt ?? now, updatedAt: now))
        let withheld = requested.filter { !granted.contains($0) }
        context.audit.record(AuditEvent(.consentGranted, ["client": clientKey, "subject": loaded.step.subject,
                                                          "scopes": granted.joined(separator: " "),
                                                          "withheld": withheld.isEmpty ? nil : withheld.joined(separator: " ")]))
    }

    private func finish(_ pending: PendingAuthorization, loaded: Loaded, browser: BrowserContext) async throws -> SignInCompletion {
        if let sessionId = loaded.step.sessionId {
            guard let session = try await sessionStore.session(id: sessionId), session.isActive(at: context.clock.now()) else {
                throw AuthorizationFailure.redirect(.accessDenied("The sign-in has ended; sign in again."), loaded.target)
            }
            var from = browser
            if loaded.step.separateSSO == true { from.ssoToken = nil }
            return try await signIns.finish(pending, consuming: loaded.idHash, existing: session, client: loaded.client, browser: from)
        }
        guard let sealed = loaded.step.sealedIdentity else { throw Self.expired }
        let identity = try HeldIdentity.open(sealed, vault: context.vault, binding: VaultBindings.consent(idHash: loaded.idHash))
        return try await signIns.finish(pending, consuming: loaded.idHash, client: loaded.client, identity: identity,
                                        amr: loaded.step.amr, browser: browser, bound: true)
    }

    /// The sign-in waiting for consent under `id`, in the browser that started it.
    private func load(_ id: String, browser: BrowserContext) async throws(AuthorizationFailure) -> Loaded {
        guard id.utf8.count <= 128, let binding = browser.binding else { throw Self.expired }
        let idHash = Secrets.hash(id)
        let found: PendingAuthorization?
        do { found = try await pendingStore.pending(idHash: idHash) } catch {
            throw .cannotRedirect(.wrapping(error, "consent"))
        }
        guard let pending = found, context.clock.now() < pending.expiresAt, let step = pending.consent,
              PendingAuthorizations.isStartingBrowser(pending, binding) else { throw Self.expired }
        let target = ErrorRedirect(pending, issuer: context.issuer)
        let client: ResolvedClient?
        do { client = try await authorizations.client(for: pending) } catch {
            throw .cannotRedirect(.wrapping(error, "client lookup"))
        }
        guard let client else { throw .redirect(.unauthorizedClient("The client is no longer configured."), target) }
        var loaded = Loaded(idHash: idHash, pending: pending, step: step, client: client, target: target)
        if let permissionId = pending.permissionId { loaded.permission = try await permission(permissionId, for: step) }
        return loaded
    }

    /// The permission request a sign-in answers: still pending, and for the user who signed in
    /// (by subject, or by user id without regard to case).
    private func permission(_ id: String, for step: ConsentStep) async throws(AuthorizationFailure) -> PermissionRequest {
        let found: PermissionRequest?
        do { found = try await permissionStore.permission(id: id) } catch {
            throw .cannotRedirect(.wrapping(error, "permission request"))
        }
        guard let permission = found, permission.status(at: context.clock.now()) == .pending else {
            throw .cannotRedirect(.invalidRequest("This permission request has been answered or has expired. Ask the app for a new link."))
        }
        let sameUser = permission.subject.map { $0 == step.subject }
            ?? (permission.username?.lowercased() == step.userId.lowercased())
        guard sameUser else {
            throw .cannotRedirect(.accessDenied("This request is for another account. Sign out, then open the link again and sign in as the person it names."))
        }
        return permission
    }
}
