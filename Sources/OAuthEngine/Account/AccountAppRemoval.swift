import Foundation
import StoreContracts

/// What "Remove an app" and "Remove access" (docs/account.md) both end: the app's token families
/// in the user's sessions, and each session left with no live tokens — except the sign-in of a
/// browser, which stays listed and signed in.
struct AccountAppRemoval: Sendable {
    let context: EngineContext
    let listing: AccountListing
    let familyStore: any TokenFamilyStore
    let sessionStore: any SessionStore

    /// Revokes `families` (found among `sessions`, the viewer's), ends the sessions they leave
    /// unused and audits those as ended by the user for `clientId`; returns the ended session ids.
    func end(_ families: [TokenFamily], in sessions: [LoginSession], viewer: AccountViewer, clientId: String) async throws -> [String] {
        let now = context.clock.now()
        for family in families { try await familyStore.revokeFamily(id: family.id, at: now) }
        let revocation = context.appRevocation(families: familyStore, sessions: sessionStore)
        var ended: [String] = []
        for id in Set(families.map(\.sessionId)).sorted() {
            guard let session = sessions.first(where: { $0.id == id }), !listing.isBrowser(session, viewer) else { continue }
            if try await revocation.endSessionIfUnused(id, at: now) { ended.append(id) }
        }
        context.audit.sessionsEnded(ended, reason: .user, client: clientId)
        return ended
    }
}
