import Foundation
import StoreContracts

extension PendingAuthorization {
    /// This sign-in, ready to be stored again under a new id for the next page of the same
    /// browser (the second step, the consent screen, a fresh login form): in browser mode, with no
    /// step, attempts, error or identity-source state left over, and a page's lifetime from `now`.
    func nextBrowserPage(at now: Date) -> PendingAuthorization {
        var next = self
        next.mode = .browser
        next.secondStep = nil
        next.consent = nil
        next.failedAttempts = 0
        next.lastError = nil
        next.upstreamState = nil
        next.expiresAt = now.addingTimeInterval(TimeInterval(PendingAuthorizations.browserPageLifetime))
        return next
    }
}
