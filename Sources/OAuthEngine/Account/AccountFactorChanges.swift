import Foundation
import IdentityCore
import PageLanguages
import StoreContracts

/// What a change of second factors on the account page does besides the change itself (docs/mfa.md):
/// a factor proved here raises the session's `amr`, and removing the last factor takes the
/// recovery codes with it. Shared by ``AccountAuthenticator`` and ``AccountPasskeys``.
struct AccountFactorChanges: Sendable {
    let context: EngineContext
    let mfaStore: any MFAStore

    /// A factor enrolled here was just proved (a valid code, a passkey ceremony) within a recent
    /// sign-in: the session now counts as having used a second factor (`amr` gains the method and
    /// `mfa`), as an enrolment in the second step does, so the page stays open to it.
    func proved(_ methods: [String], _ viewer: AccountViewer) async throws -> AccountViewer {
        var amr = viewer.session.amr
        for value in methods + ["mfa"] where !amr.contains(value) { amr.append(value) }
        guard amr != viewer.session.amr else { return viewer }
        try await mfaStore.setSessionAMR(sessionId: viewer.session.id, amr: amr)
        var session = viewer.session
        session.amr = amr
        return AccountViewer(client: viewer.client, session: session, browserSessions: viewer.browserSessions,
                             csrfToken: viewer.csrfToken, request: viewer.request)
    }

    /// After a factor was removed: with none left, the recovery codes go too (they stand in for
    /// a factor); returns what the page adds in words.
    func afterRemoval(_ viewer: AccountViewer) async throws -> PageText? {
        let enrolment = try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)
        guard enrolment?.hasFactor != true else { return nil }
        if (enrolment?.recoveryCodesLeft ?? 0) > 0 {
            try await mfaStore.replaceRecoveryCodes(subject: viewer.owner.subject, hashes: [], at: context.clock.now())
        }
        return viewer.client.service.mfa.mode == .required
            ? "You have no second factor left: the next sign-in asks you to set one up."
            : "You have no second factor left: sign-ins ask for your password only."
    }
}
