import Foundation
import IdentityConfig
import IdentityCore
import IdentityStore

/// A finished sign-in: where to send the browser, and the session it started.
public struct SignInCompletion: Sendable {
    public let redirect: String
    public let session: LoginSession
}

extension BrokerEngine {
    /// A login page needs time for a person to type; a temp login URI lives exactly `grantTtl`.
    static let browserPageLifetime = 600

    /// Stores a pending authorization and returns its id (the secret part of the temp login URI).
    /// - Parameter csrfToken: for `.browser`, the token the login form must echo (bound to a cookie).
    public func beginAuthorization(_ request: AuthorizationRequest, mode: PendingAuthorization.Mode,
                                   csrfToken: String? = nil, upstreamState: Data? = nil,
                                   id: String = Secrets.randomToken()) async throws -> String {
        let now = clock.now()
        let grantTtl = request.client.service.grantTtl
        let lifetime = mode == .api ? grantTtl : max(grantTtl, Self.browserPageLifetime)
        let pending = PendingAuthorization(
            clientId: request.client.clientId, appKey: request.client.appKey, authServiceId: request.client.service.id,
            redirectURI: request.redirectURI, scope: request.scope, state: request.state, nonce: request.nonce,
            codeChallenge: request.codeChallenge, mode: mode, csrfHash: csrfToken.map(Secrets.hash),
            prompt: request.prompt, loginHint: request.loginHint, createdAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(lifetime)), upstreamState: upstreamState)
        try await store.insertPending(pending, idHash: Secrets.hash(id))
        return id
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
                               identity: ConnectorIdentity) async throws -> SignInCompletion {
        try await finishSignIn(pending: pending, consumingPending: Secrets.hash(pendingId), client: client, identity: identity)
    }

    /// Starts the session and issues the code for a pending authorization already consumed.
    func completeConsumed(pending: PendingAuthorization, client: ResolvedClient,
                          identity: ConnectorIdentity) async throws -> SignInCompletion {
        try await finishSignIn(pending: pending, consumingPending: nil, client: client, identity: identity)
    }

    /// The pending authorization (if not consumed yet), the session and the code go to storage in
    /// one write; an app instance is bound afterwards, and if that is refused the new session is
    /// ended (its code was never shown to anyone).
    private func finishSignIn(pending: PendingAuthorization, consumingPending pendingIdHash: String?,
                              client: ResolvedClient, identity: ConnectorIdentity) async throws -> SignInCompletion {
        try checkInstanceCanBind(client)
        let session = try makeSession(identity: identity, client: client)
        let (redirect, record) = makeCode(for: pending, session: session, client: client)
        guard try await store.completeSignIn(session: session, code: record, consumingPending: pendingIdHash) else {
            throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in was already completed."))
        }
        do {
            try await bindInstance(client, to: session)
        } catch {
            try? await store.revokeSession(id: session.id, at: clock.now())
            throw error
        }
        return SignInCompletion(redirect: redirect, session: session)
    }

    /// Issues an authorization code for `session` and builds the redirect back to the client.
    public func issueCode(for pending: PendingAuthorization, session: LoginSession, client: ResolvedClient) async throws -> String {
        try await bindInstance(client, to: session)
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
