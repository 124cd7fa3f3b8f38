import Foundation
import IdentityCore
import PageLanguages
import StoreContracts

/// The account page's sign-out actions (docs/account.md): each a form post carrying the page's
/// `csrf_token`, each naming its row by an id that must be in the user's own listing, each an
/// audit event, each answered by the page saying what ended. Storage holds the effect, so every
/// broker instance sees it at once.
public struct AccountSessionActions: Sendable {
    let access: AccountAccess
    let sessionStore: any SessionStore
    let familyStore: any TokenFamilyStore
    let instanceStore: any RegisteredClientStore
    let registration: RegistrationEndpoint
    var context: EngineContext { access.context }
    var removal: AccountAppRemoval {
        AccountAppRemoval(context: context, listing: access.listing, familyStore: familyStore, sessionStore: sessionStore)
    }

    /// `POST /account/browsers/sign-out` (`session`): that browser's sign-in ends, with every
    /// token family in it — the app-to-web and QR sign-ins made from it share it and end too.
    public func signOutBrowser(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            let sessions = try await access.listing.sessions(viewer)
            guard let id = form["session"], let target = sessions.first(where: { $0.id == id && access.listing.isBrowser($0, viewer) }) else {
                try await access.refuse(viewer, "That browser is not signed in to your account here (it may have signed out already).")
            }
            try await sessionStore.revokeSession(id: target.id, at: context.clock.now())
            context.audit.sessionsEnded([target.id], reason: .user, client: viewer.client.clientId)
            let isThisBrowser = viewer.browserSessions.contains(target.id)
            access.record(.accountBrowserSignedOut, viewer, ["session": target.id, "this_browser": isThisBrowser ? "true" : "false"])
            let row = access.listing.browserRow(target, viewer)
            if target.id == viewer.session.id {
                let message: PageText = if let os = row.os {
                    "You signed out this browser (\(row.browser) on \(os)). The apps that signed in through it must sign in again."
                } else {
                    "You signed out this browser (\(row.browser)). The apps that signed in through it must sign in again."
                }
                return AccountResult(.signedOut(message: message, signInAgain: access.urls.page(viewer.client.clientId),
                                                look: viewer.client.look))
            }
            let notice: PageText = switch (row.os, row.address) {
            case (let os?, let address?):
                "Signed out \(row.browser) on \(os) (\(address)): that browser and the apps that signed in through it must sign in again."
            case (let os?, nil): "Signed out \(row.browser) on \(os): that browser and the apps that signed in through it must sign in again."
            case (nil, let address?): "Signed out \(row.browser) (\(address)): that browser and the apps that signed in through it must sign in again."
            case (nil, nil): "Signed out \(row.browser): that browser and the apps that signed in through it must sign in again."
            }
            return try await access.done(viewer, notice)
        }
    }

    /// `POST /account/shared-sign-ins/sign-out` (`session`): a device's sign-in shared by its apps
    /// (native SSO) ends — every app's tokens in it and every device secret issued for it.
    public func signOutSharedSignIn(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            let sessions = try await access.listing.sessions(viewer)
            let rows = access.listing.sharedSignInRows(sessions, try await access.listing.liveFamilies(in: sessions))
            guard let id = form["session"], let row = rows.first(where: { $0.id == id }) else {
                try await access.refuse(viewer, "That device sign-in has already ended.")
            }
            try await sessionStore.revokeSession(id: row.id, at: context.clock.now())
            context.audit.sessionsEnded([row.id], reason: .user, client: viewer.client.clientId)
            access.record(.accountSharedSignInEnded, viewer, ["session": row.id, "apps": row.apps.joined(separator: ", ")])
            if row.id == viewer.session.id {
                return AccountResult(.signedOut(
                    message: "You signed out \(row.apps.joined(separator: ", ")) on that device, and this browser with it.",
                    signInAgain: access.urls.page(viewer.client.clientId), look: viewer.client.look))
            }
            return try await access.done(viewer, "Signed out \(row.apps.joined(separator: ", ")) on that device: each must sign in again.")
        }
    }

    /// `POST /account/apps/remove` (`client`): the app's token families in the user's sessions
    /// end — its access tokens are `invalid_token` at validate and introspect, its refresh tokens
    /// `invalid_grant`. A session left without live tokens ends too, unless a browser is signed in
    /// with it (that browser stays signed in, listed above).
    public func removeApp(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            let sessions = try await access.listing.sessions(viewer)
            let clientId = form["client"] ?? ""
            let families = try await access.listing.liveFamilies(in: sessions)
                .filter { $0.clientId == clientId && !clientId.hasPrefix(ClientRegistry.instancePrefix) }
            guard let app = access.listing.appRows(families).first else {
                try await access.refuse(viewer, "That app holds no sign-in of yours here (it may have been removed already).")
            }
            _ = try await removal.end(families, in: sessions, viewer: viewer, clientId: clientId)
            access.record(.accountAppRemoved, viewer, ["client": clientId, "families": String(families.count)])
            return try await access.done(viewer, "Removed \(app.name) (\(clientId)): its tokens no longer work, and it must sign in again.")
        }
    }

    /// `POST /account/devices/remove` (`device`): as RFC 7592 DELETE — the instance is removed,
    /// its tokens end, and its credentials get `invalid_client`.
    public func removeDevice(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            let instances = try await instanceStore.registeredClients(boundTo: viewer.session.subject)
            guard let id = form["device"], let instance = instances.first(where: { $0.clientId == id }) else {
                try await access.refuse(viewer, "That device is not registered to your account here (it may have been removed already).")
            }
            try await registration.revokeInstance(instance, by: "user")
            access.record(.accountDeviceRemoved, viewer, ["client": instance.clientId, "software_id": instance.softwareId])
            return try await access.done(viewer,
                "Removed the \(instance.deviceType) device \(instance.clientId): its tokens no longer work and the app on it must register and sign in again.")
        }
    }

    /// `POST /account/sign-out-everywhere`: every sign-in of the user at this auth service ends —
    /// browsers (this one included), apps and devices (which stay registered but must sign in again).
    public func signOutEverywhere(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            var ended: [String] = []
            // Page by page (the listing is bounded); a bounded number of rounds whatever happens.
            for _ in 0..<100 {
                let page = try await access.listing.sessions(viewer)
                if page.isEmpty { break }
                let now = context.clock.now()
                for session in page { try await sessionStore.revokeSession(id: session.id, at: now) }
                ended += page.map(\.id)
            }
            context.audit.sessionsEnded(ended, reason: .user, client: viewer.client.clientId)
            access.record(.accountSignedOutEverywhere, viewer, ["sessions": String(ended.count)])
            return AccountResult(.signedOut(
                message:
                    "You signed out everywhere: sign-ins ended: \(ended.count) (browsers, apps and devices). Each must sign in again; devices stay registered.",
                signInAgain: access.urls.page(viewer.client.clientId), look: viewer.client.look))
        }
    }
}
