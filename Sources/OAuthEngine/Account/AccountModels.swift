import Foundation
import IdentityCore
import PageLanguages

/// What the browser brought to an account page request (docs/account.md).
public struct AccountRequest: Sendable {
    /// `client_id`: selects the auth service whose account is shown (`appKey` or `appKey.authServiceId`).
    public var clientId: String?
    /// The SSO cookie.
    public var ssoToken: String?
    /// The browser binding cookie, when it brought a well-formed one.
    public var binding: String?
    /// The account page's own sign-in in progress (`idc_account`, sealed).
    public var flow: String?
    public var clientAddress: String?
    public var userAgent: String?

    public init(clientId: String?, ssoToken: String? = nil, binding: String? = nil, flow: String? = nil,
                clientAddress: String? = nil, userAgent: String? = nil) {
        self.clientId = clientId
        self.ssoToken = ssoToken
        self.binding = binding
        self.flow = flow
        self.clientAddress = clientAddress
        self.userAgent = userAgent
    }
}

/// The account page (docs/account.md): the user and the sections **Signed-in browsers**,
/// **Apps**, **Devices** and **Second factors**. Rows carry the ids their forms post back; every
/// action checks them against the same listing again.
public struct AccountPageModel: Sendable, Equatable {
    public struct User: Sendable, Equatable {
        public var id: String
        public var name: String?
        public var email: String?
        public var groups: [String]
    }

    /// A browser sign-in (an SSO session).
    public struct Browser: Sendable, Equatable {
        /// The session id (the row's id in forms).
        public var id: String
        public var browser: String
        public var os: String?
        public var address: String?
        public var signedIn: Date
        public var lastUsed: Date?
        /// The browser showing the page.
        public var isCurrent: Bool
    }

    /// A client holding live token families of the user.
    public struct App: Sendable, Equatable {
        public var clientId: String
        public var name: String
        public var signedIn: Date
        public var lastUsed: Date?
        /// A live refresh token (offline access).
        public var offlineAccess: Bool
    }

    /// A registered app instance bound to the user.
    /// A sign-in shared by apps on one device (native SSO, docs/native-sso.md): the session a
    /// device secret was issued for, with the apps holding tokens in it.
    public struct SharedSignIn: Sendable, Equatable {
        /// The session id (the row's id in forms).
        public var id: String
        /// The apps' names, in the order they joined.
        public var apps: [String]
        public var signedIn: Date
        public var lastUsed: Date?
    }

    public struct Device: Sendable, Equatable {
        public var clientId: String
        public var softwareId: String
        public var deviceType: String
        public var registered: Date
        public var lastUsed: Date?
    }

    /// An app the user allowed on the consent screen, with what it may do.
    public struct Consent: Sendable, Equatable {
        /// The consent's client id (the row's id in forms).
        public var clientId: String
        public var name: String
        /// What each granted scope lets the app do, in words.
        public var allowed: [PageText]
        public var grantedAt: Date
        public var updatedAt: Date
    }

    public struct Passkey: Sendable, Equatable {
        /// The credential id, base64url (the row's id in forms).
        public var id: String
        public var name: String
        public var added: Date
        public var lastUsed: Date?
    }

    /// The **Second factors** section (shown unless `mfa.mode` is `off`).
    public struct SecondFactors: Sendable, Equatable {
        /// `optional` or `required`.
        public var mode: String
        /// When the authenticator app was set up; nil when there is none.
        public var authenticatorSince: Date?
        public var authenticatorLastUsed: Date?
        /// The auth service allows setting one up.
        public var offersAuthenticator: Bool
        public var passkeys: [Passkey]
        /// The auth service allows passkeys and the issuer can be a WebAuthn relying party.
        public var offersPasskeys: Bool
        public var recoveryCodesLeft: Int
        public var hasFactor: Bool
        /// The sign-in is older than five minutes: adding or removing a factor signs in again first.
        public var changesNeedSignIn: Bool
    }

    public var heading: PageText
    /// The client id the page was opened with (forms post it back).
    public var clientId: String
    /// Bound to this browser's SSO cookie and session.
    public var csrfToken: String
    /// What the last action did, in words.
    public var notice: PageText?
    /// Why the last action was refused, in words.
    public var error: PageText?
    /// Recovery codes to show once (just made).
    public var recoveryCodes: [String]
    public var user: User
    public var browsers: [Browser]
    public var apps: [App]
    public var devices: [Device]
    /// Sign-ins shared by several apps on one device (native SSO).
    public var sharedSignIns: [SharedSignIn] = []
    /// The apps the user allowed on the consent screen (docs/consent.md).
    public var consents: [Consent] = []
    public var factors: SecondFactors?
    /// How the page looks: the auth service's stylesheet and branding.
    public var look: PageLook
}

/// Setting up an authenticator app from the account page: the QR code's URI, the key as text, and
/// the key sealed for the confirming form.
public struct AuthenticatorSetupModel: Sendable, Equatable {
    public var heading: PageText
    public var clientId: String
    public var csrfToken: String
    public var uri: String
    /// The Base32 key in groups of four.
    public var secret: String
    /// The key, sealed by the vault and bound to the session (a hidden form field).
    public var sealedSetup: String
    public var error: PageText?
    public var look: PageLook
}

/// Adding a passkey from the account page: the creation options for the page's script.
public struct PasskeySetupModel: Sendable, Equatable {
    public var heading: PageText
    public var clientId: String
    public var csrfToken: String
    /// `navigator.credentials.create` options, JSON.
    public var options: String
    public var look: PageLook
}

/// What an account page request comes to; the controller only renders it.
public enum AccountOutcome: Sendable, Equatable {
    case page(AccountPageModel, status: Int)
    case authenticatorSetup(AuthenticatorSetupModel, status: Int)
    case passkeySetup(PasskeySetupModel)
    /// The broker's own sign-in (the login form, the identity source, or back with a code).
    case signIn(AuthorizeOutcome)
    /// 303 to this page (of the account pages).
    case redirect(String)
    /// This browser's sign-in ended: say so, and offer signing in again.
    case signedOut(message: PageText, signInAgain: String, look: PageLook)
    case errorPage(OAuthError)
}

/// An outcome with what the browser's cookies must become.
public struct AccountResult: Sendable, Equatable {
    public var outcome: AccountOutcome
    /// The browser binding cookie to set (a sign-in was started).
    public var binding: String?
    /// The account sign-in cookie to set (`idc_account`).
    public var flow: String?
    public var clearFlow = false
    /// A new SSO cookie (the account sign-in finished).
    public var sso: SSOCookie?

    public init(_ outcome: AccountOutcome, binding: String? = nil, flow: String? = nil, clearFlow: Bool = false, sso: SSOCookie? = nil) {
        self.outcome = outcome
        self.binding = binding
        self.flow = flow
        self.clearFlow = clearFlow
        self.sso = sso
    }
}

/// What the passkey script hears after posting a new passkey: where to go, or why not.
public struct AccountPasskeyAnswer: Sendable, Equatable {
    public var redirect: String?
    public var error: String?
    public var status: Int
}
