import Foundation
import IdentityCore
import Logging
import StoreContracts

/// Revocation that reaches one app's grants (see `AppRevocation`): a revoked refresh token, a
/// replayed code, a reused refresh token, an app instance removed. Every session it ends, and
/// every replay it detects, is an audit event.
struct Revocation: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let familyStore: any TokenFamilyStore

    /// Revokes one app's family and, when that left the session without a live family, the
    /// session. Returns whether the session ended.
    @discardableResult
    func revokeFamily(_ familyId: String, sessionId: String, at now: Date, reason: AuditEvent.SessionEnd = .revoked,
                      client: String? = nil) async throws -> Bool {
        let ended = try await context.appRevocation(families: familyStore, sessions: sessionStore).revokeFamily(familyId, sessionId: sessionId, at: now)
        if ended { context.audit.sessionsEnded([sessionId], reason: reason, client: client) }
        return ended
    }

    /// Revokes every family of `clientId` (an app instance) and ends sessions left unused.
    func revokeFamilies(ofClient clientId: String, at now: Date, reason: AuditEvent.SessionEnd = .revoked) async throws {
        let ended = try await context.appRevocation(families: familyStore, sessions: sessionStore).revokeFamilies(ofClient: clientId, at: now)
        context.audit.sessionsEnded(ended, reason: reason, client: clientId)
    }

    /// A code presented again: revoke what its first use issued (RFC 6749 §10.5). When the first
    /// use has not stored its family yet, the session ends unless another app uses it.
    func revokeReplayedCode(_ code: AuthorizationCode, issuedFamily: String?, at now: Date) async throws {
        context.audit.record(AuditEvent(.codeReplayed, ["client": code.clientId, "session": code.sessionId]))
        if let issuedFamily {
            try await revokeFamily(issuedFamily, sessionId: code.sessionId, at: now, reason: .reuse, client: code.clientId)
        } else if try await context.appRevocation(families: familyStore, sessions: sessionStore).endSessionIfUnused(code.sessionId, at: now) {
            context.audit.sessionsEnded([code.sessionId], reason: .reuse, client: code.clientId)
        }
    }

    func revokeForReuse(_ family: TokenFamily) async throws {
        context.audit.record(AuditEvent(.refreshReuseDetected, ["client": family.clientId, "session": family.sessionId]))
        try await revokeFamily(family.id, sessionId: family.sessionId, at: context.clock.now(), reason: .reuse,
                               client: family.clientId)
        context.logger.warning("refresh token reuse detected; family revoked", metadata: ["client": "\(family.clientId)"])
    }
}
