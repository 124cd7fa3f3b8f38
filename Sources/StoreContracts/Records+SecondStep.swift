import Foundation

/// The second step of a browser sign-in (docs/mfa.md), kept in its pending authorization: the
/// first factor passed, and the person now answers an AuthLink challenge, proves a second factor,
/// or enrols one. What the first factor yielded is sealed (it may hold an upstream token).
public struct SecondStep: Sendable, Codable, Equatable {
    public enum Purpose: String, Sendable, Codable {
        /// The connector asked a question (an AuthLink challenge).
        case challenge
        /// A code or passkey of an enrolled factor.
        case verify
        /// Enrol a factor first (`mfa.mode: required`, none enrolled).
        case enrol
    }

    /// An AuthLink challenge between rounds.
    public struct Challenge: Sendable, Codable, Equatable {
        public var message: String
        /// `otp` or `text`.
        public var input: String
        /// The AuthLink's `state`, sealed.
        public var sealedState: Data
        /// Rounds answered so far (at most 3).
        public var rounds: Int

        public init(message: String, input: String, sealedState: Data, rounds: Int) {
            self.message = message
            self.input = input
            self.sealedState = sealedState
            self.rounds = rounds
        }
    }

    public var purpose: Purpose
    /// The user's id at the identity source (whose factors are asked for).
    public var userId: String
    /// The username as typed (throttle key, AuthLink challenge answers).
    public var username: String
    /// The connector's identity, sealed; nil for an SSO session being stepped up.
    public var sealedIdentity: Data?
    /// The SSO session being stepped up (`mfa.mode: required`, a session without `mfa`).
    public var sessionId: String?
    /// What the sign-in has proved so far.
    public var amr: [String]
    public var challenge: Challenge?
    /// An authenticator-app secret being enrolled, sealed, until a valid code confirms it.
    public var pendingTOTPSecret: Data?
    /// Recovery codes to show once, sealed; cleared when shown.
    public var sealedRecoveryCodes: Data?
    /// The factor is proved (or enrolled): the next step finishes the sign-in.
    public var satisfied: Bool
    /// Failed attempts on this page. Nothing counts or reads it any more (the login throttle
    /// bounds failures); it is still stored so that an earlier version sharing the database
    /// decodes the records this one writes.
    public var failures: Int
    /// What the page says after a failed attempt.
    public var message: String?

    public init(purpose: Purpose, userId: String, username: String, sealedIdentity: Data?, sessionId: String? = nil, amr: [String],
                challenge: Challenge? = nil, pendingTOTPSecret: Data? = nil, sealedRecoveryCodes: Data? = nil,
                satisfied: Bool = false, failures: Int = 0, message: String? = nil) {
        self.purpose = purpose
        self.userId = userId
        self.username = username
        self.sealedIdentity = sealedIdentity
        self.sessionId = sessionId
        self.amr = amr
        self.challenge = challenge
        self.pendingTOTPSecret = pendingTOTPSecret
        self.sealedRecoveryCodes = sealedRecoveryCodes
        self.satisfied = satisfied
        self.failures = failures
        self.message = message
    }
}
