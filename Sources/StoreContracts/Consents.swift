import Foundation

/// What a user allowed one app (docs/consent.md): the scopes granted on the consent screen, kept
/// per user (the broker's subject) and client so that every instance sees the same answer, the
/// account page can list it, and removing it makes the app ask again.
public struct ConsentRecord: Sendable, Equatable {
    /// The user's subject at the broker (the `sub` of their ID tokens).
    public var subject: String
    /// The client, as the consent screen named it (`appKey.authServiceId`, or an instance's `dyn~` id).
    public var clientId: String
    /// Every scope the user granted this client, sorted.
    public var scopes: [String]
    /// When the user first allowed this client anything (kept across later grants).
    public var grantedAt: Date
    /// When the user last decided (a new grant replaces `scopes`).
    public var updatedAt: Date

    public init(subject: String, clientId: String, scopes: [String], grantedAt: Date, updatedAt: Date) {
        self.subject = subject
        self.clientId = clientId
        self.scopes = Array(Set(scopes)).sorted()
        self.grantedAt = grantedAt
        self.updatedAt = updatedAt
    }
}

/// Consents, one per (subject, client).
public protocol ConsentStore: Sendable {
    func consent(subject: String, clientId: String) async throws -> ConsentRecord?
    /// Stores `record`, replacing the scopes of an earlier one for the same user and client but
    /// keeping that one's `grantedAt`.
    func saveConsent(_ record: ConsentRecord) async throws
    /// The user's consents, newest decision first, at most `limit`.
    func consents(subject: String, limit: Int) async throws -> [ConsentRecord]
    /// Removes it; returns false when there was none.
    func revokeConsent(subject: String, clientId: String) async throws -> Bool
}
