import Foundation
import IdentityCore
import StoreContracts

/// The sign-in is over: the identity source refused a refresh for good, the session was
/// revoked, or its upstream token expired and cannot be refreshed (SAML).
public struct SessionEnded: Error, Sendable {
    public let reason: String
}

extension BrokerEngine {
    /// Refresh when the upstream token expires within this many seconds (SPEC §4).
    public static let upstreamRefreshMargin: TimeInterval = 30

    public func needsUpstreamRefresh(_ session: LoginSession) -> Bool {
        guard let expiry = session.upstreamExpiresAt else { return false }
        return expiry.timeIntervalSince(clock.now()) <= Self.upstreamRefreshMargin
    }

    /// Returns the session with a usable upstream token, refreshing it through the connector first
    /// when it is expired or about to expire. One refresh per session runs at a time; concurrent
    /// callers share its result.
    ///
    /// - Throws: ``SessionEnded`` when the session is over (its family revoked);
    ///   `temporarily_unavailable` (503) / `server_error` (502) when the source failed, session kept.
    public func ensureFreshUpstream(_ session: LoginSession, authService: ResolvedAuthService) async throws -> LoginSession {
        guard needsUpstreamRefresh(session) else { return session }
        return try await refreshes.run(sessionId: session.id) { [self] in
            try await refreshUnderLease(sessionId: session.id, authService: authService)
        }
    }

    /// How long one instance may hold a session's refresh lease: the longest upstream call plus a margin.
    static let refreshLeaseDuration: TimeInterval = 45

    /// Takes the session's refresh lease in storage so that exactly one broker instance calls the
    /// identity source; the others wait until the new token appears (or the lease runs out).
    private func refreshUnderLease(sessionId: String, authService: ResolvedAuthService) async throws -> LoginSession {
        let holder = instanceId + ":" + Secrets.randomToken(bytes: 6)
        let deadline = ContinuousClock.now + .seconds(Self.refreshLeaseDuration + 5)
        while true {
            let acquired = try await guarded("refresh lease") {
                try await store.acquireRefreshLease(sessionId: sessionId, holder: holder,
                                                    until: clock.now().addingTimeInterval(Self.refreshLeaseDuration), now: clock.now())
            }
            if acquired {
                defer { Task { try? await store.releaseRefreshLease(sessionId: sessionId, holder: holder) } }
                return try await refreshUpstream(sessionId: sessionId, authService: authService)
            }
            // Another instance is refreshing: wait for its result.
            try await Task.sleep(for: .milliseconds(25))
            guard let latest = try await guarded("session", { try await store.session(id: sessionId) }),
                  latest.isActive(at: clock.now()) else { throw SessionEnded(reason: "The sign-in session has ended.") }
            if !needsUpstreamRefresh(latest) { return latest }
            if ContinuousClock.now > deadline {
                throw OAuthError.unavailable("The identity source refresh is taking too long; try again.")
            }
        }
    }

    private func refreshUpstream(sessionId: String, authService: ResolvedAuthService) async throws -> LoginSession {
        let type = authService.service.provider.type
        let now = clock.now()
        guard let current = try await guarded("session", { try await store.session(id: sessionId) }), current.isActive(at: now) else {
            throw SessionEnded(reason: "The sign-in session has ended.")
        }
        // Another caller (or instance) may have refreshed it meanwhile.
        guard needsUpstreamRefresh(current) else { return current }
        guard let connector = authService.connector as? any RefreshingConnector,
              let upstream = try? upstreamToken(of: current) else {
            try await endSession(current, reason: "The sign-in at the identity source has expired; sign in again.", type: type)
        }
        let outcome: RefreshOutcome
        do {
            outcome = try await connector.refresh(userId: current.userId, upstream: upstream)
        } catch {
            metrics.upstreamRefresh(connector: type, outcome: "unavailable")
            let failure = Self.connectorError(error)
            logger.warning("upstream refresh failed", metadata: ["authService": "\(authService.id)", "error": "\(failure.debug ?? failure.errorDescription)"])
            throw failure
        }
        switch outcome {
        case .ended(let reason):
            try await endSession(current, reason: reason, type: type)
        case .refreshed(let token, let attributes):
            let sealed = try vault.seal(try JSONEncoder.sortedCompact.encode(token),
                                        Self.upstreamBinding(sessionId: current.id, authServiceId: current.authServiceId))
            metrics.vault("seal")
            let updated = try await guarded("store refreshed upstream") {
                try await store.updateUpstream(sessionId: current.id, sealedUpstream: sealed, upstreamExpiresAt: token.expiresAt,
                                               attributes: attributes, expectedVersion: current.version)
            }
            metrics.upstreamRefresh(connector: type, outcome: "refreshed")
            guard updated else {
                // Someone else stored a newer token first: use theirs.
                guard let latest = try await guarded("session", { try await store.session(id: sessionId) }),
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

    private func endSession(_ session: LoginSession, reason: String, type: String) async throws -> Never {
        try await guarded("end session") { try await store.revokeSession(id: session.id, at: clock.now()) }
        metrics.upstreamRefresh(connector: type, outcome: "ended")
        logger.info("session ended by the identity source", metadata: ["authService": "\(session.authServiceId)"])
        throw SessionEnded(reason: reason)
    }
}
