import Foundation
import StoreContracts

/// Row operations several roles share (a session and its families are written by sign-ins, code
/// exchanges, refreshes and revocations alike), each as the SQL backends' statements do it.
extension MemoryTables {
    mutating func insert(_ session: LoginSession) throws {
        try sessions.insertNew(session, at: session.id, table: "sessions")
    }

    /// The family alone, for a session written already extended (`LoginSession.extended(for:)`).
    /// Its refresh token hash must be no other family's current one (a unique column).
    mutating func insertRow(_ family: TokenFamily) throws {
        if let hash = family.refreshHash { try requireUnusedRefreshHash(hash) }
        try families.insertNew(family, at: family.id, table: "token_families")
    }

    /// The family, and its session extended for its refresh token (`TokenFamilyStore.insertFamily`).
    mutating func insert(_ family: TokenFamily) throws {
        try insertRow(family)
        if let session = sessions[family.sessionId] { sessions[family.sessionId] = session.extended(for: family) }
    }

    /// Throws when a family's current refresh token already has this hash.
    func requireUnusedRefreshHash(_ hash: String) throws {
        if families.values.contains(where: { $0.refreshHash == hash }) {
            throw MemoryStore.ConstraintViolation(table: "token_families.refresh_hash", key: hash)
        }
    }

    /// Ends the session and drops its sealed upstream token; a session ended before keeps its date.
    /// A session that ends here leaves a logout notice, as the SQL backends' trigger does.
    mutating func endSession(_ id: String, at date: Date) {
        guard var session = sessions[id] else { return }
        if session.revokedAt == nil, logoutNotices[id] == nil {
            logoutNotices[id] = LogoutNoticeRow(subject: session.subject, endedAt: date, dueAt: date)
        }
        session.revokedAt = session.revokedAt ?? date
        session.sealedUpstream = nil
        sessions[id] = session
    }

    /// Revokes every family of the session (those revoked before keep their date).
    mutating func revokeFamilies(inSession sessionId: String, at date: Date) {
        for (id, family) in families where family.sessionId == sessionId {
            revokeFamily(id, family, at: date)
        }
    }

    /// Revokes one family (keeping an earlier revocation date).
    mutating func revokeFamily(_ id: String, _ family: TokenFamily, at date: Date) {
        var revoked = family
        revoked.revokedAt = family.revokedAt ?? date
        families[id] = revoked
    }
}
