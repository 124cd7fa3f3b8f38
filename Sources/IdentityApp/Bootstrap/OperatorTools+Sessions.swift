import Foundation
import OAuthEngine
import StoreContracts

extension OperatorTools {
    /// Live sign-in sessions, newest first (`idconnect sessions list`): all of them, one auth
    /// service's, one user's (user id without regard to case, or subject).
    public func sessions(authService: String?, user: String?, limit: Int = 1000) async throws -> [LoginSession] {
        try checkAuthService(authService)
        return try await store.liveSessions(authServiceId: authService, user: user, at: clock.now(), limit: limit)
    }

    /// Ends every live session of `user` (optionally at one auth service only) with every token
    /// family in it (`idconnect sessions revoke`): their access tokens answer `invalid_token` on
    /// the next validation at any broker, their refresh tokens `invalid_grant`, browser SSO asks
    /// for a new sign-in, instances bound to the user cannot re-login with client credentials.
    /// Returns the sessions it ended.
    public func revokeSessions(user: String, authService: String?) async throws -> [LoginSession] {
        try checkAuthService(authService)
        var ended: [LoginSession] = []
        while true {
            let now = clock.now()
            let page = try await store.liveSessions(authServiceId: authService, user: user, at: now, limit: 500)
            if page.isEmpty { return ended }
            for session in page {
                try await store.revokeSession(id: session.id, at: now)
                audit.record(AuditEvent(.sessionEnded, ["session": session.id, "reason": AuditEvent.SessionEnd.operator.rawValue,
                                                        "user": session.userId, "auth_service": session.authServiceId]))
                ended.append(session)
            }
        }
    }

    private func checkAuthService(_ id: String?) throws {
        guard let id else { return }
        let known = config.environments.flatMap(\.authServices).map(\.id) + config.organizations.flatMap(\.authServices).map(\.id)
        guard known.contains(id) else { throw OperatorToolError("No auth service with id '\(id)' is configured.") }
    }
}
