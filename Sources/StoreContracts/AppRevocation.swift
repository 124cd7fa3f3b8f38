import Foundation

/// Revocation that reaches one app's grants, shared by the engine (`/oauth/revoke`, code replay,
/// refresh-token reuse, RFC 7592 DELETE) and the operator tools (`idconnect clients revoke`).
///
/// Several apps may hold token families in one sign-in session (SSO, `css`). Revoking one app's
/// family leaves the others alone; the session — and with it the sealed upstream token — ends
/// once no live family is left in it (docs/protocol.md, "POST /oauth/revoke"). Logout, a definitive
/// upstream refusal and the session's own end still end everything (`SessionStore.revokeSession`).
public struct AppRevocation: Sendable {
    let families: any TokenFamilyStore
    let sessions: any SessionStore
    /// How long after its last issuance a family's access tokens may still be valid (the longest
    /// `tokenTtl` plus skew): a refresh-less family younger than this keeps the session.
    let accessTokenWindow: TimeInterval

    public init(families: any TokenFamilyStore, sessions: any SessionStore, accessTokenWindow: TimeInterval) {
        self.families = families
        self.sessions = sessions
        self.accessTokenWindow = accessTokenWindow
    }

    /// Revokes one family and ends its session if that left it without a live family. When the
    /// family does not exist yet (a code replayed while its first redemption is still minting),
    /// the whole session ends instead, so the tokens about to be issued die with it. Returns
    /// whether the session ended.
    @discardableResult
    public func revokeFamily(_ familyId: String, sessionId: String, at now: Date) async throws -> Bool {
        guard try await families.revokeFamily(id: familyId, at: now) else {
            try await sessions.revokeSession(id: sessionId, at: now)
            return true
        }
        return try await endSessionIfUnused(sessionId, at: now)
    }

    /// Revokes every family of `clientId` (an app instance signing out or deleted) and ends each
    /// session that left without a live family; returns the sessions it ended.
    @discardableResult
    public func revokeFamilies(ofClient clientId: String, at now: Date) async throws -> [String] {
        var ended: [String] = []
        for sessionId in try await families.revokeFamilies(clientId: clientId, at: now)
            where try await endSessionIfUnused(sessionId, at: now) {
            ended.append(sessionId)
        }
        return ended
    }

    /// Ends the session if no family in it is live any more.
    @discardableResult
    public func endSessionIfUnused(_ sessionId: String, at now: Date) async throws -> Bool {
        try await families.endSessionIfUnused(id: sessionId, at: now, issuedAfter: now.addingTimeInterval(-accessTokenWindow))
    }
}
