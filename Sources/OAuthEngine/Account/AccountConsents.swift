import Foundation
import IdentityCore
import StoreContracts

/// The account page's **Apps you allowed** (docs/consent.md): removing one takes back the
/// consent and ends that app's tokens in the user's sessions, so the app must ask again. Storage
/// holds both, so every broker instance sees it at once.
public struct AccountConsents: Sendable {
    let access: AccountAccess
    let consentStore: any ConsentStore
    let sessionStore: any SessionStore
    let familyStore: any TokenFamilyStore
    let permissions: PermissionNotifications
    var context: EngineContext { access.context }
    var removal: AccountAppRemoval {
        AccountAppRemoval(context: context, listing: access.listing, familyStore: familyStore, sessionStore: sessionStore)
    }

    /// `POST /account/consents/remove` (`client`): the consent goes, and with it the app's token
    /// families (`kid` and `kid.svc` alike) in the user's sessions; a session left without live
    /// tokens ends unless a browser is signed in with it.
    public func removeAccess(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            let rows = try await access.listing.consentRows(viewer)
            guard let clientId = form["client"], let row = rows.first(where: { $0.clientId == clientId }) else {
                try await access.refuse(viewer, "That app has no access to take back (it may have been removed already).")
            }
            _ = try await consentStore.revokeConsent(subject: viewer.session.subject, clientId: clientId)
            let ended = try await endTokens(of: clientId, viewer)
            try await permissions.revokeGranted(subject: viewer.session.subject, clientKey: clientId, at: context.clock.now())
            context.audit.record(AuditEvent(.consentRevoked, ["client": clientId, "subject": viewer.session.subject, "by": "user",
                                                              "families": String(ended.families)]))
            return try await access.done(viewer, "Removed the access of \(row.name): its tokens no longer work, and it must ask you again.")
        }
    }

    /// Revokes the families of the consent's client in the viewer's sessions; returns how many
    /// went, and ends the sessions left without one (except browser sign-ins).
    private func endTokens(of clientId: String, _ viewer: AccountViewer) async throws -> (families: Int, sessions: [String]) {
        let sessions = try await access.listing.sessions(viewer)
        let directory = context.state.directory
        let families = try await access.listing.liveFamilies(in: sessions).filter { family in
            family.clientId == clientId || directory.resolve(family.clientId).map { ConsentGate.clientKey($0) == clientId } == true
        }
        return (families.count, try await removal.end(families, in: sessions, viewer: viewer, clientId: clientId))
    }
}
