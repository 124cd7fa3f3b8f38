import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// A finished sign-in: where to send the browser, and the session it started.
public struct SignInCompletion: Sendable {
    public let redirect: String
    public let session: LoginSession
    /// The browser finishing it is the one that started it (its binding cookie matched): only
    /// then does it get the SSO cookie (SPEC §9.4). False for API-mode temp login URIs.
    public var browserBound = false
}

extension BrokerEngine {
    /// A login page needs time for a person to type; a temp login URI lives exactly `grantTtl`.
    static let browserPageLifetime = 600

    /// Stores a pending authorization and returns its id (the secret part of the temp login URI).
    /// Rate-limited per client address (SPEC §9.13): every request stores something before
    /// anyone authenticated.
    /// - Parameter browserBinding: the browser's binding cookie (SPEC §9.4): the login form's
    ///   token is derived from it and the id, and callbacks must present it again.
    public func beginAuthorization(_ request: AuthorizationRequest, mode: PendingAuthorization.Mode,
                                   browserBinding: String? = nil, upstreamState: Data? = nil,
                                   id: String = Secrets.randomToken(), clientAddress: String? = nil) async throws -> String {
        try await admit(.authorization, clientAddress: clientAddress)
        let now = clock.now()
        let grantTtl = request.client.service.grantTtl
        let lifetime = mode == .api ? grantTtl : max(grantTtl, Self.browserPageLifetime)
        let pending = PendingAuthorization(
            clientId: request.client.clientId, appKey: request.client.appKey, authServiceId: request.client.service.id,
            redirectURI: request.redirectURI, scope: request.scope, state: request.state, nonce: request.nonce,
            codeChallenge: request.codeChallenge, mode: mode, browserHash: browserBinding.map(Secrets.hash),
            prompt: request.prompt, loginHint: request.loginHint, createdAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(lifetime)), upstreamState: upstreamState)
        try await store.insertPending(pending, idHash: Secrets.hash(id))
        return id
    }

    /// The login form's CSRF token for pending authorization `pendingId` in the browser holding
    /// `browserBinding`: bound to both, so it is good for that form in that browser only.
    public static func formToken(pendingId: String, browserBinding: String) -> String {
        Secrets.hash("form\u{0}\(pendingId)\u{0}\(browserBinding)")
    }

    /// Whether `browserBinding` is the binding cookie of the browser that started `pending`.
    static func isStartingBrowser(_ pending: PendingAuthorization, _ browserBinding: String?) -> Bool {
        guard let browserBinding, let expected = pending.browserHash else { return false }
        return Secrets.constantTimeEquals(Secrets.hash(browserBinding), expected)
    }

    /// The pending authorization behind a temp login id, if it exists and has not expired.
    public func pendingAuthorization(id: String) async throws -> PendingAuthorization? {
        guard id.utf8.count <= 128, let pending = try await store.pending(idHash: Secrets.hash(id)),
              clock.now() < pending.expiresAt else { return nil }
        return pending
    }

    /// The client a pending authorization was started for, if the configuration (or, for an app
    /// instance, storage) still has it.
    public func client(for pending: PendingAuthorization) async throws -> ResolvedClient? {
        try await resolveClient(pending.clientId, state: state)
    }

    /// Consumes the pending authorization, starts the session and issues the code.
    /// Returns the redirect URL with `code` as the last parameter.
    public func completeSignIn(pendingId: String, pending: PendingAuthorization, client: ResolvedClient,
                               identity: ConnectorIdentity, browserBound: Bool = false) async throws -> SignInCompletion {
        var completion = try await finishSignIn(pending: pending, consumingPending: Secrets.hash(pendingId), client: client,
                                                identity: identity)
        completion.browserBound = browserBound
        return completion
    }

    /// Starts the session and issues the code for a pending authorization already consumed.
    func completeConsumed(pending: PendingAuthorization, client: ResolvedClient,
                          identity: ConnectorIdentity) async throws -> SignInCompletion {
        try await finishSignIn(pending: pending, consumingPending: nil, client: client, identity: identity)
    }

    /// The pending authorization (if not consumed yet), the session and the code go to storage in
    /// one write. An app instance bound to another user is refused first, storing nothing; an
    /// unbound one stays unbound: only redeeming the code with its own secret binds it (SPEC §9.1).
    private func finishSignIn(pending: PendingAuthorization, consumingPending pendingIdHash: String?,
                              client: ResolvedClient, identity: ConnectorIdentity) async throws -> SignInCompletion {
        let session = try makeSession(identity: identity, client: client)
        try checkInstanceMayServe(client, subject: session.subject)
        let (redirect, record) = makeCode(for: pending, session: session, client: client)
        guard try await store.completeSignIn(session: session, code: record, consumingPending: pendingIdHash) else {
            throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in was already completed."))
        }
        return SignInCompletion(redirect: redirect, session: session)
    }

    /// Issues an authorization code for `session` and builds the redirect back to the client.
    /// Nothing is bound here (SPEC §9.1): a code that is never redeemed gives its client nothing.
    public func issueCode(for pending: PendingAuthorization, session: LoginSession, client: ResolvedClient) async throws -> String {
        try checkInstanceMayServe(client, subject: session.subject)
        let (redirect, record) = makeCode(for: pending, session: session, client: client)
        try await store.insertCode(record)
        return redirect
    }

    /// A new code for `session`: the redirect back to the client carrying it (`code` last, the
    /// only place the code itself appears) and what is stored of it.
    private func makeCode(for pending: PendingAuthorization, session: LoginSession,
                          client: ResolvedClient) -> (redirect: String, record: AuthorizationCode) {
        let now = clock.now()
        let code = Secrets.randomToken()
        return (RedirectURL.build(pending.redirectURI, [("state", pending.state), ("code", code)]), AuthorizationCode(
            hash: Secrets.hash(code), clientId: pending.clientId, redirectURI: pending.redirectURI,
            scope: pending.scope, nonce: pending.nonce, codeChallenge: pending.codeChallenge, sessionId: session.id,
            createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(client.service.grantTtl))))
    }
}
