import Foundation
import IdentityCore
import Logging
import StoreContracts

/// Revocation that reaches one app's grants (see `AppRevocation`): a revoked refresh token, a
/// replayed code, a reused refresh token, an app instance removed.
struct Revocation: Sendable {
    let context: EngineContext

    /// Revokes one app's family and, when that left the session without a live family, the
    /// session. Returns whether the session ended.
    @discardableResult
    func revokeFamily(_ familyId: String, sessionId: String, at now: Date) async throws -> Bool {
        try await guarded("revoke") { try await context.appRevocation.revokeFamily(familyId, sessionId: sessionId, at: now) }
    }

    /// Revokes every family of `clientId` (an app instance) and ends sessions left unused.
    func revokeFamilies(ofClient clientId: String, at now: Date) async throws {
        try await guarded("revoke") { try await context.appRevocation.revokeFamilies(ofClient: clientId, at: now) }
    }

    /// A code presented again: revoke what its first use issued (RFC 6749 §10.5). When the first
    /// use has not stored its family yet, the session ends unless another app uses it.
    func revokeReplayedCode(_ code: AuthorizationCode, issuedFamily: String?, at now: Date) async throws {
        if let issuedFamily {
            try await revokeFamily(issuedFamily, sessionId: code.sessionId, at: now)
        } else {
            _ = try await guarded("revoke replayed code") { try await context.appRevocation.endSessionIfUnused(code.sessionId, at: now) }
        }
    }

    func revokeForReuse(_ family: TokenFamily) async throws {
        try await revokeFamily(family.id, sessionId: family.sessionId, at: context.clock.now())
        context.logger.warning("refresh token reuse detected; family revoked", metadata: ["client": "\(family.clientId)"])
    }
}
