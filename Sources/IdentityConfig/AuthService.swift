import Foundation
import IdentityCore

/// A Kinvey-shaped auth service, with its defaults (docs/configuration.md, "Auth services").
public struct AuthService: Sendable {
    public enum TokenFormat: String, Sendable { case jwt, opaque }
    public enum CustomizedLogin: Sendable {
        case css(URL)
        case page(URL)
    }

    public var id: String
    public var name: String?
    public var redirectURIs: [String]
    public var grantTtl: Int
    public var tokenTtl: Int
    public var refresh: Bool
    public var refreshTtl: Int
    /// Absolute bound on a sign-in: neither SSO reuse nor refresh extends a session past
    /// sign-in + `sessionMaxAge` seconds (docs/security.md, rule 11).
    public var sessionMaxAge: Int
    public var tokenFormat: TokenFormat
    public var customizedLogin: CustomizedLogin?
    /// Sign-in on the login page by scanning a QR code with the app (docs/qr-login.md).
    public var qrLogin: QRLoginSettings?
    /// The device authorization grant (RFC 8628, docs/device-grant.md) for this service's clients;
    /// nil: not allowed (`unauthorized_client`).
    public var deviceGrant: DeviceGrantSettings?
    /// Token exchange (RFC 8693, docs/token-exchange.md) for this service's clients; nil: refused.
    public var tokenExchange: TokenExchangeSettings?
    /// Native SSO across the environment's apps on one device (OpenID Connect Native SSO for
    /// Mobile Apps 1.0, docs/native-sso.md): the `device_sso` scope and the device secret exchange.
    public var nativeSSO = false
    /// DPoP (RFC 9449, docs/dpop.md): whether its clients must bind their tokens to a key, and
    /// whether proofs must carry a server nonce. Nil: DPoP is used when a client sends a proof.
    public var dpop: DPoPSettings?
    /// The API scopes (of `apiResources`) this service's clients may ask for; nil: every declared one.
    public var allowedScopes: [String]?
    /// Authorization requests must be pushed first (`POST /oauth/par`, RFC 9126).
    public var requirePar = false
    /// A second factor after the connector (docs/mfa.md); `.off` by default.
    public var mfa: MFASettings = .off
    /// The browser origins that may read the answers of the token, userinfo, revocation and
    /// end-session endpoints for every client id of this service (`webOrigins`, CORS;
    /// docs/protocol.md, "Browser apps (CORS)"): exact, normalized origins, `+` already replaced
    /// by the origins of the http(s) redirect URIs. Empty (the default): no browser origin.
    public var webOrigins: [String] = []
    /// Where this service's relying parties hear, server to server, that a sign-in in which they
    /// got tokens ended (`backchannelLogoutUri`, OpenID Connect Back-Channel Logout 1.0;
    /// docs/protocol.md, "Back-channel logout to relying parties"). Nil: they are not told.
    public var backchannelLogoutURI: URL?
    /// The consent screen for this service's clients (docs/consent.md); nil: first-party apps, never asked.
    public var consent: ConsentSettings?
    /// How the hosted pages look for this service's clients, over the environment's `branding`.
    public var branding: PageBranding?
    /// `locale`: the hosted pages' language when neither the app (`ui_locales`) nor the browser
    /// (`Accept-Language`) names one the broker has (docs/languages.md).
    public var locale: String?
    public var provider: ProviderSettings
    /// Where it was defined, for problems.
    public var location: SourceLocation
    public var keyPath: String

    public static let defaultGrantTtl = 60
    public static let defaultTokenTtl = 3600
    public static let defaultRefreshTtl = 1_209_600
    public static let defaultSessionMaxAge = 2_592_000

    /// An auth service as the configuration reader makes one; built in code (tests), every
    /// setting left out has the default docs/configuration.md names, and `location`/`keyPath`
    /// (where problems point) say it was not read from a file.
    public init(id: String, name: String? = nil, redirectURIs: [String], grantTtl: Int = AuthService.defaultGrantTtl,
                tokenTtl: Int = AuthService.defaultTokenTtl, refresh: Bool = true, refreshTtl: Int = AuthService.defaultRefreshTtl,
                sessionMaxAge: Int = AuthService.defaultSessionMaxAge, tokenFormat: TokenFormat = .jwt,
                customizedLogin: CustomizedLogin? = nil, qrLogin: QRLoginSettings? = nil, allowedScopes: [String]? = nil,
                requirePar: Bool = false, mfa: MFASettings = .off, webOrigins: [String] = [], provider: ProviderSettings,
                location: SourceLocation = .builtInCode, keyPath: String = "") {
        self.id = id
        self.name = name
        self.redirectURIs = redirectURIs
        self.grantTtl = grantTtl
        self.tokenTtl = tokenTtl
        self.refresh = refresh
        self.refreshTtl = refreshTtl
        self.sessionMaxAge = sessionMaxAge
        self.tokenFormat = tokenFormat
        self.customizedLogin = customizedLogin
        self.qrLogin = qrLogin
        self.allowedScopes = allowedScopes
        self.requirePar = requirePar
        self.mfa = mfa
        self.webOrigins = webOrigins
        self.provider = provider
        self.location = location
        self.keyPath = keyPath
    }
}

/// `dpop` of an auth service (docs/dpop.md).
public struct DPoPSettings: Sendable, Equatable {
    /// Tokens of this service's clients are always DPoP-bound: a token request without a proof is refused.
    public var required: Bool
    /// Proofs must carry a fresh server nonce (`DPoP-Nonce`, RFC 9449 §8): a proof made in
    /// advance by a compromised device is worthless.
    public var nonce: Bool

    public init(required: Bool = false, nonce: Bool = false) {
        self.required = required
        self.nonce = nonce
    }
}

/// `deviceGrant` of an auth service: TVs, kiosks and command lines sign in by showing a code the
/// user types on the broker's page in another browser (RFC 8628, docs/device-grant.md).
public struct DeviceGrantSettings: Sendable, Equatable {
    /// Seconds a device code and its user code live.
    public var lifetime: Int
    /// Seconds a device waits between polls (`interval`); `slow_down` adds 5.
    public var interval: Int

    public static let defaultLifetime = 600
    public static let defaultInterval = 5

    public init(lifetime: Int = DeviceGrantSettings.defaultLifetime, interval: Int = DeviceGrantSettings.defaultInterval) {
        self.lifetime = lifetime
        self.interval = interval
    }
}

/// `qrLogin` of an auth service: its login page offers "Sign in with a QR code"; the app of a
/// signed-in user scans it and confirms through the QR API (docs/qr-login.md).
public struct QRLoginSettings: Sendable, Equatable {
    /// Seconds a displayed code can be confirmed.
    public var ttl: Int
    /// What the code encodes, with `?code={uuid}` appended; nil: `<issuer>/oauth/qr`.
    public var qrURL: URL?
    /// The scope an app's access token needs to confirm or refuse.
    public var scope: String

    public static let defaultTTL = 120
    public static let defaultScope = "blitz_qr_auth"

    public init(ttl: Int = QRLoginSettings.defaultTTL, qrURL: URL? = nil, scope: String = QRLoginSettings.defaultScope) {
        self.ttl = ttl
        self.qrURL = qrURL
        self.scope = scope
    }
}

/// One API an access token may be for: asking for `scope` puts `audience` in the token's `aud`
/// (RFC 9068), and `resource=<audience>` (RFC 8707) narrows a token to it.
public struct APIResource: Sendable, Equatable {
    public var scope: String
    /// The API's identifier, an absolute URI (usually its base URL).
    public var audience: String

    public init(scope: String, audience: String) {
        self.scope = scope
        self.audience = audience
    }
}

/// `server.appLinks`: the files that let an app claim the broker's https URLs (RFC 8252 §7.2),
/// as the bytes served (docs/configuration.md, "server.yaml").
public struct AppLinks: Sendable, Equatable {
    /// Served at `/.well-known/apple-app-site-association`: a JSON object.
    public var apple: [UInt8]?
    /// Served at `/.well-known/assetlinks.json`: the Digital Asset Links statement list, a JSON array.
    public var android: [UInt8]?

    public init(apple: [UInt8]? = nil, android: [UInt8]? = nil) {
        self.apple = apple
        self.android = android
    }
}
