import Foundation
import IdentityCore
import StoreContracts

extension SecondStepSignIn {
    /// Whether "Not you?" can start the sign-in over on this broker's login form: only where the
    /// first factor was that form (a password connector); elsewhere the identity source's own
    /// sign-in would have to start over, which only the app can do.
    static func canRestart(_ client: ResolvedClient) -> Bool { client.authService.connector is any PasswordConnector }

    /// `POST /oauth/mfa/{id}/restart` (form: `csrf_token`): "Not you?" — the second step ends
    /// (its held identity with it) and the same authorization starts over on an empty login
    /// form, in the same browser, under a new id. Returns the login form's URL.
    public func restart(id: String, parameters: OAuthParameters, browser: BrowserContext) async throws(AuthorizationFailure) -> SecondStepOutcome {
        let loaded = try await load(id, browser: browser, csrfToken: parameters["csrf_token"], checkToken: true)
        guard Self.canRestart(loaded.client) else {
            throw .cannotRedirect(.invalidRequest("This sign-in cannot start over here. Close this page and start again from the app."))
        }
        var next = loaded.pending.nextBrowserPage(at: context.clock.now())
        next.loginHint = nil
        let newId = Secrets.randomToken()
        do {
            guard try await pendingStore.consumePending(idHash: loaded.idHash) else { throw Self.expired }
            try await pendingStore.insertPending(next, idHash: Secrets.hash(newId))
        } catch let failure as AuthorizationFailure {
            throw failure
        } catch {
            throw .cannotRedirect(.wrapping(error, "second step"))
        }
        return .next("\(context.issuer)/oauth/authenticate/\(newId)")
    }
}
