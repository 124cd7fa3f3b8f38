import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// Authorizations between `/oauth/auth` and the sign-in (docs/protocol.md, "GET /oauth/auth" and
/// "POST /oauth/auth"): stored under the hash of their id (the secret part of the temp login URI),
/// finished in one write that consumes them, starts the session and stores its code.
public struct PendingAuthorizations: Sendable {
    let context: EngineContext
    let pendingStore: any PendingAuthorizationStore
    let codeStore: any AuthorizationCodeStore
    let sessionStore: any SessionStore
    let clients: ClientRegistry
    let rateLimiter: RateLimiter
    let issuer: TokenIssuer
    let binding: InstanceBinding

    /// A login page needs time for a person to type; a temp login URI lives exactly `grantTtl`.
    static let browserPageLifetime = 600

    /// Stores a pending authorization and returns its id. Rate-limited per client address
    /// (docs/security.md, rule 13): every request stores something before anyone authenticated.
    /// - Parameter browserBinding: the browser's binding cookie (docs/security.md, rule 4): the
    ///   login form's token is derived from it and the id, and callbacks must present it again.
    public func begin(_ request: AuthorizationRequest, mode: PendingAuthorization.Mode, browserBinding: String? = nil,
                      upstreamState: Data? = nil, id: String = Secrets.randomToken(), clientAddress: String? = nil) async throws -> String {
        try await rateLimiter.admit(.authorization, clientAddress: clientAddress)
        let now = context.clock.now()
        let grantTtl = request.client.service.grantTtl
        let lifetime = mode == .api ? grantTtl : max(grantTtl, Self.browserPageLifetime)
        var pending = PendingAuthorization(request, mode: mode, browserHash: browserBinding.map(Secrets.hash), createdAt: now,
                                           expiresAt: now.addingTimeInterval(TimeInterval(lifetime)))
        pending.upstreamState = upstreamState
        try await pendingStore.insertPending(pending, idHash: Secrets.hash(id))
        return id
    }

    /// The pending authorization behind a temp login id, if it exists, has not expired and still
    /// waits for a sign-in (one on the consent screen is past that: docs/consent.md).
    public func find(id: String) async throws -> PendingAuthorization? {
        guard id.utf8.count <= 128, let pending = try await pendingStore.pending(idHash: Secrets.hash(id)),
              context.clock.now() < pending.expiresAt, pending.consent == nil else { return nil }
        return pending
    }

    /// The client a pending authorization was started for, if it is still configured (or stored).
    public func client(for pending: PendingAuthorization) async throws -> ResolvedClient? {
        try await clients.resolve(pending.clientId)
    }

    /// The login form's CSRF token for pending authorization `pendingId` in the browser holding
    /// `browserBinding`: bound to both, so it is good for that form in that browser only.
    public static func formToken(pendingId: String, browserBinding: String) -> String {
        Secrets.hash("form\u{0}\(pendingId)\u{0}\(browserBinding)")
    }

    /// Whether `browserBinding` is the binding cookie of the browser that started `pending`.
    public static func isStartingBrowser(_ pending: PendingAuthorization, _ browserBinding: String?) -> Bool {
        guard let browserBinding, let expected = pending.browserHash else { return false }
        return Secrets.constantTimeEquals(Secrets.hash(browserBinding), expected)
    }

    /// Finishes a sign-in: the pending authorization (unless `pendingIdHash` is nil: already
    /// consumed), the session and its code go to storage in one write. An app instance bound to
    /// another user is refused first, storing nothing; an unbound one stays unbound: only
    /// redeeming the code with its own secret binds it (docs/security.md, rule 1).
    ///
    /// A browser sign-in (`browserBound`) keeps the browser's User-Agent and address in the
    /// session, for the user's account page (docs/account.md); an app's (API mode) keeps neither.
    /// A correct password's `throttleReset` rides in the same write and is marked performed once
    /// the write returned (whether or not the sign-in was still there to complete).
    func complete(_ pending: PendingAuthorization, consuming pendingIdHash: String?, client: ResolvedClient,
                  identity: ConnectorIdentity, amr: [String], browserBound: Bool, clientAddress: String?,
                  userAgent: String? = nil, throttleReset: PendingThrottleReset? = nil) async throws -> SignInCompletion {
        var session = try issuer.makeSession(identity: identity, client: client, amr: amr)
        if browserBound {
            session.userAgent = LoginSession.storedUserAgent(userAgent)
            session.clientAddress = clientAddress
        }
        try binding.checkMayServe(client, subject: session.subject)
        let (redirect, record) = makeCode(for: pending, session: session, client: client)
        let completed = try await sessionStore.completeSignIn(session: session, code: record, consumingPending: pendingIdHash,
                                                               throttleReset: throttleReset?.reset)
        throttleReset?.performed()
        guard completed else {
            throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in was already completed."))
        }
        context.audit.signedIn(session, client: client, address: clientAddress)
        return SignInCompletion(redirect: redirect, session: session, browserBound: browserBound)
    }

    /// Finishes a sign-in with a session that already exists (QR login: the confirming app's
    /// session, so that ending the app's session ends this one too): consumes the pending
    /// authorization, then stores a code for the session.
    func complete(_ pending: PendingAuthorization, consuming pendingIdHash: String, existing session: LoginSession,
                  client: ResolvedClient) async throws -> SignInCompletion {
        try binding.checkMayServe(client, subject: session.subject)
        guard try await pendingStore.consumePending(idHash: pendingIdHash) else {
            throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in was already completed."))
        }
        let (redirect, record) = makeCode(for: pending, session: session, client: client)
        try await codeStore.insertCode(record)
        return SignInCompletion(redirect: redirect, session: session, browserBound: true)
    }

    /// Issues a code for an existing sign-in (SSO) and builds the redirect back to the client.
    /// Nothing is bound here (docs/security.md, rule 1): a code that is never redeemed gives its
    /// client nothing.
    func issueCode(_ request: AuthorizationRequest, session: LoginSession) async throws -> ClientAnswer {
        let now = context.clock.now()
        let pending = PendingAuthorization(request, mode: .browser, browserHash: nil, createdAt: now, expiresAt: now)
        try binding.checkMayServe(request.client, subject: session.subject)
        let (redirect, record) = makeCode(for: pending, session: session, client: request.client)
        try await codeStore.insertCode(record)
        return redirect
    }

    /// A new code for `session`: the redirect back to the client carrying it (`code` last, the
    /// only place the code itself appears) and what is stored of it.
    private func makeCode(for pending: PendingAuthorization, session: LoginSession,
                          client: ResolvedClient) -> (redirect: ClientAnswer, record: AuthorizationCode) {
        let now = context.clock.now()
        let code = Secrets.randomToken()
        // `iss` (RFC 9207) before `code`: `code` stays last, as the Android SDK reads everything after it.
        let answer = ClientAnswer(redirectURI: pending.redirectURI, mode: pending.responseMode ?? .query,
                                  [("state", pending.state), ("iss", context.issuer), ("code", code)])
        return (answer, AuthorizationCode(
            hash: Secrets.hash(code), clientId: pending.clientId, redirectURI: pending.redirectURI,
            scope: pending.scope, nonce: pending.nonce, codeChallenge: pending.codeChallenge, sessionId: session.id,
            createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(client.service.grantTtl)), resources: pending.resources,
            claims: pending.claims, online: pending.online, dpopJkt: pending.dpopJkt))
    }
}

extension PendingAuthorization {
    /// What is kept of `request` while its sign-in is under way.
    init(_ request: AuthorizationRequest, mode: Mode, browserHash: String?, createdAt: Date, expiresAt: Date) {
        self.init(clientId: request.client.clientId, appKey: request.client.appKey, authServiceId: request.client.service.id,
                  redirectURI: request.redirectURI, scope: request.scope, state: request.state, nonce: request.nonce,
                  codeChallenge: request.codeChallenge, mode: mode, browserHash: browserHash,
                  prompt: request.prompt, loginHint: request.loginHint, createdAt: createdAt, expiresAt: expiresAt)
        resources = request.resources
        claims = request.claims
        maxAge = request.maxAge
        online = request.online ? true : nil
        responseMode = request.responseMode == .query ? nil : request.responseMode
        stepUp = request.stepUp
        dpopJkt = request.dpopJkt
        permissionId = request.permissionId
        uiLocales = request.uiLocales
    }
}
