import Foundation

/// `mfa` of an auth service (docs/mfa.md): a second factor after whatever connector accepted
/// the user.
public struct MFASettings: Sendable, Equatable {
    /// Who is asked for a second factor.
    public enum Mode: String, Sendable, CaseIterable {
        /// Nobody (the default).
        case off
        /// Users who enrolled a factor are asked for it; enrolment happens on the account page.
        case optional
        /// Everyone: a user without a factor enrols one before the authorization completes.
        case required
    }

    /// A kind of second factor.
    public enum Method: String, Sendable, CaseIterable, Comparable {
        /// An authenticator app (RFC 6238 codes); recovery codes come with it.
        case totp
        /// Passkeys (WebAuthn).
        case webauthn

        public static func < (lhs: Method, rhs: Method) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var mode: Mode
    /// The methods users may enrol and use (default both).
    public var methods: Set<Method>
    /// The label authenticator apps show; nil: the auth service's `name` (or its id).
    public var issuerName: String?

    public init(mode: Mode = .off, methods: Set<Method> = Set(Method.allCases), issuerName: String? = nil) {
        self.mode = mode
        self.methods = methods
        self.issuerName = issuerName
    }

    public static let off = MFASettings()
}

extension AuthService {
    /// The label authenticator apps show for this auth service.
    public var mfaIssuerName: String { mfa.issuerName ?? name ?? id }
}
