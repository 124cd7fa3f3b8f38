import Foundation
import IdentityCore
import StoreContracts
import Tracing

/// The sign-in is over: the identity source refused a refresh for good, the session was
/// revoked, or its upstream token expired and cannot be refreshed.
public struct SessionEnded: Error, Sendable {
    public let reason: String
}

/// Keeps a session's upstream token usable (docs/protocol.md, "Sessions and upstream tokens"): when
/// it is expired or expires within ``margin``, it is refreshed through the connector first. One
/// refresh per session runs at a time in this process (``RefreshCoordinator``) and across instances
/// (a lease row in storage); concurrent callers share the result.
struct UpstreamRefresher: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let leaseStore: any RefreshLeaseStore
    let vault: UpstreamVault
    let coordinator: RefreshCoordinator
    /// Identifies this process in refresh leases shared with other instances.
    let instanceId: String

    static let margin: TimeInterval = 30
    /// How long one instance may hold a session's refresh lease: the longest upstream call plus a margin.
    static let leaseDuration: TimeInterval = 45

    func isDue(_ session: LoginSession) -> Bool {
        guard let expiry = session.upstreamExpiresAt else { return false }
        return expiry.timeIntervalSince(context.clock.now()) <= Self.margin
    }

    /// The session with a usable upstream token, refreshed through the identity source the user
    /// signed in with: the session's own auth service, also when the token asking belongs to
    /// another client of the environment (an exchanged token, a second app sharing the sign-in).
    /// - Parameter authService: the asking client's auth service (used when it is the session's).
    /// - Throws: ``SessionEnded`` when the session is over; `temporarily_unavailable` (503) /
    ///   `server_error` (502) when the source failed, session kept.
    func ensureFresh(_ session: LoginSession, authService: ResolvedAuthService) async throws -> LoginSession {
        guard isDue(session) else { return session }
        let own = try owner(of: session, asking: authService)
        return try await coordinator.run(sessionId: session.id) { [self] in
            try await refreshUnderLease(sessionId: session.id, authService: own)
        }
    }

    /// Session `id` when it is still live, its upstream sign-in brought up to date first
    /// (docs/security.md, rule 11: a session the identity source ended issues nothing more);
    /// `invalid_grant` otherwise (the grants' answer).
    func liveSession(_ id: String?, client: ResolvedClient, now: Date) async throws -> LoginSession {
        guard let id, let session = try await sessionStore.session(id: id), session.isActive(at: now) else {
            throw OAuthError.invalidGrant("The sign-in session has ended.")
        }
        do {
            return try await ensureFresh(session, authService: client.authService)
        } catch let ended as SessionEnded {
            throw OAuthError.invalidGrant(ended.reason)
        }
    }

    /// The auth service `session` was signed in through.
    func owner(of session: LoginSession, asking authService: ResolvedAuthService) throws -> ResolvedAuthService {
        if authService.id == session.authServiceId { return authService }
        guard let own = context.state.directory.resolve("\(session.appKey).\(session.authServiceId)")?.authService else {
            throw SessionEnded(reason: "The auth service of this sign-in is no longer configured; sign in again.")
        }
        return own
    }

    /// Takes the session's refresh lease so that exactly one instance calls the identity source;
    /// the others wait until the new token appears (or the lease runs out).
    private func refreshUnderLease(sessionId: String, authService: ResolvedAuthService) async throws -> LoginSession {
        let clock = context.clock
        let holder = instanceId + ":" + Secrets.randomToken(bytes: 6)
        let deadline = ContinuousClock.now + .seconds(Self.leaseDuration + 5)
        while true {
            let acquired = try await leaseStore.acquireRefreshLease(sessionId: sessionId, holder: holder,
                                                until: clock.now().addingTimeInterval(Self.leaseDuration), now: clock.now())
            if acquired {
                defer { Task { try? await leaseStore.releaseRefreshLease(sessionId: sessionId, holder: holder) } }
                return try await refresh(sessionId: sessionId, authService: authService)
            }
            try await Task.sleep(for: .milliseconds(25))
            guard let latest = try await sessionStore.session(id: sessionId),
                  latest.isActive(at: clock.now()) else { throw SessionEnded(reason: "The sign-in session has ended.") }
            if !isDue(latest) { return latest }
            if ContinuousClock.now > deadline {
                throw OAuthError.unavailable("The identity source refresh is taking too long; try again.")
            }
        }
    }

    private func refresh(sessionId: String, authService: ResolvedAuthService) async throws -> LoginSession {
        let type = authService.service.provider.type
        let now = context.clock.now()
        guard let current = try await sessionStore.session(id: sessionId), current.isActive(at: now) else {
            throw SessionEnded(reason: "The sign-in session has ended.")
        }
        // Another caller (or instance) may have refreshed it meanwhile.
        guard isDue(current) else { return current }
        guard let connector = authService.connector as? any RefreshingConnector, let upstream = try? vault.open(of: current) else {
            try await end(current, reason: "The sign-in at the identity source has expired; sign in again.", type: type)
        }
        let outcome: RefreshOutcome
        do {
            outcome = try await withSpan("connector.refresh", ofKind: .client) { span in
                span.attributes["connector.type"] = type
                return try await connector.refresh(userId: current.userId, upstream: upstream)
            }
        } catch {
            context.metrics.upstreamRefresh(connector: type, outcome: "unavailable")
            let failure = ConnectorErrors.oauthError(for: error)
            context.logger.warning("upstream refresh failed",
                                   metadata: ["authService": "\(authService.id)", "error": "\(failure.debug ?? failure.errorDescription)"])
            throw failure
        }
        switch outcome {
        case .ended(let reason):
            try await end(current, reason: reason, type: type)
        case .refreshed(let token, let attributes):
            let sealed = try vault.seal(token, sessionId: current.id, authServiceId: current.authServiceId)
            let updated = try await sessionStore.updateUpstream(sessionId: current.id, sealedUpstream: sealed, upstreamExpiresAt: token.expiresAt,
                                           attributes: attributes, expectedVersion: current.version)
            context.metrics.upstreamRefresh(connector: type, outcome: "refreshed")
            guard updated else {
                // Someone else stored a newer token first: use theirs.
                guard let latest = try await sessionStore.session(id: sessionId),
                      latest.isActive(at: now) else { throw SessionEnded(reason: "The sign-in session has ended.") }
                return latest
            }
            var refreshed = current
            refreshed.sealedUpstream = sealed
            refreshed.upstreamExpiresAt = token.expiresAt
            if let attributes { refreshed.attributes = attributes }
            refreshed.version += 1
            return refreshed
        }
    }

    private func end(_ session: LoginSession, reason: String, type: String) async throws -> Never {
        try await sessionStore.revokeSession(id: session.id, at: context.clock.now())
        context.metrics.upstreamRefresh(connector: type, outcome: "ended")
        context.audit.record(.sessionEnded(session: session.id, reason: .identitySource))
        throw SessionEnded(reason: reason)
    }
}

/// Maps whatever a connector threw to the error the client sees (docs/protocol.md, "Errors"):
/// outages 503, nonsense 502.
enum ConnectorErrors {
    static func oauthError(for error: any Error) -> OAuthError {
        switch error {
        case let failure as ConnectorFailure: failure.oauthError
        case let oauth as OAuthError: oauth
        default: .upstreamNonsense("The identity source failed.", debug: "\(error)")
        }
    }
}
