import Foundation
import IdentityCore
import PageLanguages

/// The device page's form: type the code the device shows (docs/device-grant.md).
public struct DeviceCodeForm: Sendable, Equatable {
    public var heading: PageText
    /// Where the form posts (`/oauth/device`).
    public var action: String
    /// Bound to the browser (its binding cookie).
    public var csrfToken: String
    /// What was typed (or came in `verification_uri_complete`), shown again after a mistake.
    public var userCode: String
    public var error: PageText?
    /// Seconds to wait after too many codes were tried (`Retry-After` of the 429).
    public var retryAfter: Int?
}

/// "Sign in on this device?": names the app and the code so the person can compare it with the
/// device's (RFC 8628 §5.4: a code sent by someone else must not sign them in unnoticed).
public struct DeviceConfirmation: Sendable, Equatable {
    /// The app the device runs: its environment's name, else its App Key.
    public var appName: String
    /// The auth service the person signs in with.
    public var serviceName: String
    /// As the device shows it: `BCDF-GHJK`.
    public var userCode: String
    /// What the device asked for, in words.
    public var access: [PageText]
    /// Where Continue and Cancel post (`/oauth/device/confirm`).
    public var action: String
    /// Bound to the browser and the code.
    public var csrfToken: String
    public var look: PageLook
}

/// The last page: the device is signed in, or it is not (and why).
public struct DeviceFinished: Sendable, Equatable {
    public var heading: PageText
    public var message: PageText
    public var signedIn: Bool
    public var look: PageLook
    /// The device page, to type a code again (when not signed in).
    public var again: String?
}

/// What a device page request answers; the controller only renders it.
public enum DeviceOutcome: Sendable, Equatable {
    case codeForm(DeviceCodeForm, status: Int)
    case confirm(DeviceConfirmation)
    /// The sign-in: login form, identity source, second step, or straight back to the callback.
    case signIn(AuthorizeOutcome)
    case finished(DeviceFinished, status: Int)
    case errorPage(OAuthError)
}

/// An outcome with what the browser's cookies must become.
public struct DeviceResult: Sendable, Equatable {
    public var outcome: DeviceOutcome
    /// The browser binding cookie to set.
    public var binding: String?
    /// The sealed `idc_device` cookie to set (a sign-in for a device started).
    public var flow: String?
    /// Drop the `idc_device` cookie (its sign-in came back).
    public var clearFlow = false
    public var sso: SSOCookie?

    init(_ outcome: DeviceOutcome, binding: String? = nil, flow: String? = nil, clearFlow: Bool = false, sso: SSOCookie? = nil) {
        self.outcome = outcome
        self.binding = binding
        self.flow = flow
        self.clearFlow = clearFlow
        self.sso = sso
    }
}

/// A device sign-in between the confirmation and the callback, sealed in the `idc_device`
/// cookie of the browser that confirmed.
struct DeviceFlow: Codable {
    var verifier: String
    var state: String
    var deviceCodeHash: String
    var clientId: String
    var expiresAt: Date
}

extension Scopes {
    /// What a device gets, in words for the person deciding: what its scope shows of the user,
    /// API scopes by name, and — when the auth service issues refresh tokens — that it stays
    /// signed in.
    static func inWords(_ scope: String, staysSignedIn: Bool) -> [PageText] {
        var words: [PageText] = []
        for token in scope.split(separator: " ") {
            let text: PageText? = switch token {
            case "openid", "offline_access", "native": nil
            case "profile": "Your name and profile"
            case "email": "Your email address"
            case "groups", "roles": "Your groups and roles"
            default: "Access to \(String(token))"
            }
            if let text, !words.contains(text) { words.append(text) }
        }
        if staysSignedIn { words.append("Stay signed in until you remove it on your account page") }
        return words
    }
}
