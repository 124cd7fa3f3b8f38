import Foundation

/// A sign-in waiting for the user's consent (docs/consent.md), kept in its pending authorization:
/// the person is authenticated, and the consent screen at `/oauth/consent/{id}` asks what the app
/// may do. Either the connector's identity is held sealed (a new sign-in: the session starts only
/// once the user approves) or an existing session is named (SSO, QR-code login, a stepped-up
/// sign-in).
public struct ConsentStep: Sendable, Codable, Equatable {
    /// The user's subject at the broker (whose consent is asked).
    public var subject: String
    /// The user's id at the identity source, and a name to show ("Signed in as …").
    public var userId: String
    public var displayName: String
    /// The connector's identity, sealed; nil when `sessionId` names the session.
    public var sealedIdentity: Data?
    public var sessionId: String?
    /// What the sign-in proved.
    public var amr: [String]
    /// The SSO session came from an app (`css`): it gets an SSO record of its own when remembered.
    public var separateSSO: Bool?

    public init(subject: String, userId: String, displayName: String, sealedIdentity: Data? = nil, sessionId: String? = nil,
                amr: [String], separateSSO: Bool? = nil) {
        self.subject = subject
        self.userId = userId
        self.displayName = displayName
        self.sealedIdentity = sealedIdentity
        self.sessionId = sessionId
        self.amr = amr
        self.separateSSO = separateSSO
    }
}
