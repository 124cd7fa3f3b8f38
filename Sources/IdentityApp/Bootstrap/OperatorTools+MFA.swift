import Foundation
import OAuthEngine
import StoreContracts

extension OperatorTools {
    /// Second-factor enrolments at auth service `authService` (every environment or organization
    /// defining that id), optionally of one user (`idconnect mfa list`).
    public func mfaEnrolments(authService: String, user: String?, limit: Int = 1000) async throws -> [MFAEnrolment] {
        try checkMFAAuthService(authService)
        return try await store.mfaEnrolments(authServiceId: authService, user: user, limit: limit)
    }

    /// Removes every factor and recovery code of `user` at `authService` (`idconnect mfa reset`,
    /// a lost phone): the next sign-in asks them to enrol again where `mfa.mode` is `required`.
    /// Works while brokers run (row operations). Returns what went, per enrolment.
    public func resetMFA(authService: String, user: String) async throws -> [(MFAOwner, MFARemoval)] {
        try checkMFAAuthService(authService)
        var removed: [(MFAOwner, MFARemoval)] = []
        for enrolment in try await store.mfaEnrolments(authServiceId: authService, user: user, limit: 100) {
            let removal = try await store.removeMFA(subject: enrolment.owner.subject)
            audit.record(AuditEvent(.mfaRemoved, [
                "auth_service": enrolment.owner.authServiceId, "user": enrolment.owner.userId, "subject": enrolment.owner.subject,
                "totp": String(removal.totp), "passkeys": String(removal.passkeys), "recovery_codes": String(removal.recoveryCodes),
                "by": "operator"]))
            removed.append((enrolment.owner, removal))
        }
        return removed
    }

    private func checkMFAAuthService(_ id: String) throws {
        let known = config.environments.flatMap(\.authServices).map(\.id) + config.organizations.flatMap(\.authServices).map(\.id)
        guard known.contains(id) else { throw OperatorToolError("No auth service with id '\(id)' is configured.") }
    }
}
