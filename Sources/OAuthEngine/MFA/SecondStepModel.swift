import Foundation
import IdentityCore
import PageLanguages

/// The second-step page of a browser sign-in (docs/mfa.md): an AuthLink challenge, a second
/// factor, an enrolment, or the recovery codes shown once. The controller only renders it.
public struct SecondStepPageModel: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case challenge, verify, enrol, recoveryCodes
    }

    /// Setting up an authenticator app: what the QR code encodes, and the key as text.
    public struct TOTPSetup: Sendable, Equatable {
        public var uri: String
        /// The Base32 key in groups of four, for typing.
        public var secret: String
    }

    public var kind: Kind
    public var heading: PageText
    /// Who is signing in (the username as typed), so a person on a shared computer sees it is
    /// not their sign-in.
    public var account: String?
    /// "Not you?": where the form that starts the sign-in over posts (`csrf_token`); nil where it
    /// cannot start over here (an identity source signed the person in).
    public var restartAction: String?
    /// Where the code form posts (`otp`, `csrf_token`).
    public var action: String
    /// Bound to the pending authorization and the browser.
    public var csrfToken: String
    /// The challenge's question, or what the page asks for, in words.
    public var message: PageText
    /// Why the last attempt failed, in words.
    public var error: PageText?
    /// Whether the page offers the code input (`otp`).
    public var offersCode: Bool
    /// `numeric` for a code, `text` for an AuthLink question answered in words.
    public var inputMode: String
    public var totpSetup: TOTPSetup?
    /// Passkey ceremony options (JSON) and where the script posts the answer.
    public var passkeyOptions: String?
    public var passkeyAction: String?
    /// Creating (enrolment) rather than using a passkey.
    public var passkeyCreates: Bool
    public var recoveryCodes: [String]
    /// Where "Continue" posts once the recovery codes were shown.
    public var continueAction: String?
    public var look: PageLook
}

/// What a second-step request comes to.
public enum SecondStepOutcome: Sendable {
    /// Show the page (again), with this HTTP status.
    case page(SecondStepPageModel, status: Int)
    /// Go (303) to this page of the same sign-in.
    case next(String)
    /// Done: back to the client with a code and a fresh SSO cookie.
    case finished(BrowserSignInResult)
    /// Given up (too many rounds of an identity source's questions): back to the client with an error.
    case redirect(ClientAnswer)
}
