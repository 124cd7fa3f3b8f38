import Foundation

/// A sign-in that ended, waiting for its relying parties to hear of it (OpenID Connect
/// Back-Channel Logout 1.0; docs/protocol.md, "Back-channel logout to relying parties").
///
/// Storage writes one whenever a session ends — `revoked_at` going from nothing to a date, by any
/// path: logout, the account page, `idconnect sessions revoke`, an identity source's logout — in
/// the same transaction, so no ending is lost to a crash and the command-line tools need no
/// running broker. The broker's instances then deliver it (``LogoutNoticeStore``).
public struct LogoutNotice: Sendable, Equatable {
    public var sessionId: String
    /// The session's subject: the `sub` its ID tokens carried.
    public var subject: String
    public var endedAt: Date
    /// Delivery attempts made so far (none before the first).
    public var attempts: Int
    /// The clients that got tokens in the session (a token family), each once, in byte order.
    public var clientIds: [String]
    /// Those already told; a later attempt leaves them out.
    public var delivered: [String]

    public init(sessionId: String, subject: String, endedAt: Date, attempts: Int, clientIds: [String], delivered: [String]) {
        self.sessionId = sessionId
        self.subject = subject
        self.endedAt = endedAt
        self.attempts = attempts
        self.clientIds = clientIds
        self.delivered = delivered
    }
}

/// The queue of ``LogoutNotice``s, shared by every instance on one database: an instance claims
/// due notices for a while (a lease, as `RefreshLeaseStore` has), so two instances never deliver
/// one notice at once, and a claim that an instance dropped (it crashed) runs out and is taken
/// over.
public protocol LogoutNoticeStore: Sendable {
    /// Claims for `holder` until `until` at most `limit` notices due at `now` — their next attempt
    /// is due and no live claim holds them — oldest due first.
    func claimLogoutNotices(holder: String, until: Date, now: Date, limit: Int) async throws -> [LogoutNotice]
    /// Records an attempt on a notice `holder` still holds: `delivered` are all the clients told so
    /// far. With `retryAt` nil the notice is finished and removed; otherwise it waits until
    /// `retryAt` with one attempt more, unclaimed. A holder whose claim was taken over changes nothing.
    func settleLogoutNotice(sessionId: String, holder: String, delivered: [String], retryAt: Date?) async throws
}
