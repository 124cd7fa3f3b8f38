import Foundation
import IdentityCore

/// The whole `console-config/` directory, read and checked (docs/configuration.md).
public struct BrokerConfig: Sendable {
    public var server: ServerSettings
    /// `sqlite:PATH` or `postgres://...`; `nil` means the built-in default.
    public var storage: String?
    /// `nil` when the configuration names no vault keys (a local key file is used then).
    public var vaultKeys: [VaultKeySetting]?
    public var signingAlgorithm: SigningAlgorithm
    public var organizations: [Organization]
    public var environments: [Environment]
    /// The directory the configuration was read from.
    public var directory: URL

    public init(server: ServerSettings = .init(), storage: String? = nil, vaultKeys: [VaultKeySetting]? = nil,
                signingAlgorithm: SigningAlgorithm = .rs256, organizations: [Organization] = [],
                environments: [Environment] = [], directory: URL) {
        self.server = server
        self.storage = storage
        self.vaultKeys = vaultKeys
        self.signingAlgorithm = signingAlgorithm
        self.organizations = organizations
        self.environments = environments
        self.directory = directory
    }
}

public struct ServerSettings: Sendable {
    public var issuer: String?
    public var host: String?
    public var port: Int?
    /// Reverse proxies whose `X-Forwarded-For` is believed (login throttling by address).
    public var trustedProxies: [IPAddressRange]
    /// Connection limits (`server.http`, docs/security.md, rule 8).
    public var http: HTTPLimits
    /// Per-address limits on work anyone can ask for before signing in (`server.rateLimits`,
    /// docs/security.md, rules 6 and 13).
    public var rateLimits: RateLimits
    /// Where audit events go besides the log (`server.audit`).
    public var audit: AuditSettings
    /// Where client addresses are located for the QR-login API (`server.geoip`); nil: nowhere.
    public var geoip: GeoIPSettings?
    /// The app-association files served under `/.well-known/` (`server.appLinks`).
    public var appLinks = AppLinks()
    /// HTTPS served by the broker itself (`server.tls`); nil: plain HTTP, e.g. behind a TLS proxy.
    public var tls: TLSSettings?
    /// A second, private listener for `/metrics` (`server.adminPort`, `server.adminHost`); nil:
    /// `/metrics` is served on the main listener.
    public var admin: AdminListener?

    public init(issuer: String? = nil, host: String? = nil, port: Int? = nil, trustedProxies: [IPAddressRange] = [],
                http: HTTPLimits = .init(), rateLimits: RateLimits = .init(), audit: AuditSettings = .init(),
                geoip: GeoIPSettings? = nil, appLinks: AppLinks = AppLinks(), tls: TLSSettings? = nil,
                admin: AdminListener? = nil) {
        self.issuer = issuer
        self.host = host
        self.port = port
        self.trustedProxies = trustedProxies
        self.http = http
        self.rateLimits = rateLimits
        self.audit = audit
        self.geoip = geoip
        self.appLinks = appLinks
        self.tls = tls
        self.admin = admin
    }
}

/// Where `/metrics` (with `/healthz` and `/readyz`) is served when it must not be reachable by the
/// broker's clients: plain HTTP on its own address, loopback unless configured otherwise
/// (docs/operations.md, "Metrics").
public struct AdminListener: Sendable, Equatable {
    public var host: String
    public var port: Int

    public static let defaultHost = "127.0.0.1"

    public init(host: String = AdminListener.defaultHost, port: Int) {
        self.host = host
        self.port = port
    }
}

/// `server.geoip`: a MaxMind-format database (GeoIP2 or GeoLite2 City) that locates the address
/// of a browser showing a QR code, for the app's confirmation screen.
public struct GeoIPSettings: Sendable, Equatable {
    /// The `.mmdb` file's path.
    public var database: String

    public init(database: String) { self.database = database }
}

/// `server.audit`: an optional file of audit events, one JSON object per line, rotated by size
/// (`file` → `file.1` → … → `file.<keep>`, the oldest dropped). Audit events always go to the
/// log as well, on the `idconnect.audit` label.
public struct AuditSettings: Sendable, Equatable {
    /// The file's path (relative paths: from the working directory); nil writes no file.
    public var file: String?
    /// Size at which the file is rotated.
    public var maxBytes: Int
    /// Rotated files kept.
    public var keep: Int

    public init(file: String? = nil, maxBytes: Int = 10 << 20, keep: Int = 5) {
        self.file = file
        self.maxBytes = maxBytes
        self.keep = keep
    }
}

/// `server.http`: how long a client may take to send a request head, how long an idle
/// keep-alive connection stays open, and how large a head may be (docs/security.md, rule 8). Slow
/// or idle connections cost a descriptor, not a thread; these bound how many a client can hold.
public struct HTTPLimits: Sendable, Equatable {
    /// Seconds from a request's first byte until its head must be complete (else 408, closed).
    public var headTimeout: Int
    /// Seconds an idle keep-alive connection stays open.
    public var idleTimeout: Int
    /// Largest request head (request line and headers) in bytes (else 431).
    public var maxHeadBytes: Int

    public init(headTimeout: Int = 10, idleTimeout: Int = 60, maxHeadBytes: Int = 16_384) {
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.maxHeadBytes = maxHeadBytes
    }
}

/// `server.rateLimits`: requests per minute from one client address (IPv6: per /64) for the
/// endpoints that store something before anyone authenticated, and per initial access token for
/// registration. Over the limit the answer is 429 with `Retry-After`.
public struct RateLimits: Sendable, Equatable {
    /// New authorization requests (`/oauth/auth`, each stores a pending sign-in) per address.
    public var authorizationsPerMinute: Int
    /// App instance registrations (`/oauth/register`) per address.
    public var registrationsPerMinute: Int
    /// App instance registrations per initial access token (it ships inside the app: one token
    /// serves every install, so this is the fleet-wide ceiling).
    public var registrationsPerTokenPerMinute: Int
    /// User codes typed on the device page (`/oauth/device`) per address: a guesser gets this
    /// many tries a minute against a space of 20⁸ codes (docs/device-grant.md).
    public var userCodesPerMinute: Int

    public init(authorizationsPerMinute: Int = 120, registrationsPerMinute: Int = 20, registrationsPerTokenPerMinute: Int = 600,
                userCodesPerMinute: Int = 10) {
        self.authorizationsPerMinute = authorizationsPerMinute
        self.registrationsPerMinute = registrationsPerMinute
        self.registrationsPerTokenPerMinute = registrationsPerTokenPerMinute
        self.userCodesPerMinute = userCodesPerMinute
    }
}

/// One vault key: the first one seals, every one opens (docs/configuration.md, "vault";
/// docs/operations.md, "Vault").
public struct VaultKeySetting: Sendable {
    public var id: String
    /// 32 bytes of key material.
    public var secret: [UInt8]

    public init(id: String, secret: [UInt8]) {
        self.id = id
        self.secret = secret
    }
}

public enum SigningAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256"
    case es256 = "ES256"
}

public struct Organization: Sendable {
    public var id: String
    public var authServices: [AuthService]
    /// The APIs its environments' tokens may be for (docs/api-resources.md).
    public var apiResources: [APIResource] = []
    public var location: SourceLocation
    public var keyPath: String

    /// An organization as the configuration reader makes one; built in code (tests), its
    /// `location` says it was not read from a file.
    public init(id: String, authServices: [AuthService], apiResources: [APIResource] = [],
                location: SourceLocation = .builtInCode, keyPath: String = "") {
        self.id = id
        self.authServices = authServices
        self.apiResources = apiResources
        self.location = location
        self.keyPath = keyPath
    }
}

/// An environment: an app's App Key, its secret and its auth services
/// (docs/configuration.md, "Environments").
public struct Environment: Sendable {
    public enum ValidateAuth: String, Sendable { case optional, required }

    public var appKey: String
    public var appSecret: String?
    public var name: String?
    public var organization: String?
    public var defaultAuthService: String?
    public var authServices: [AuthService]
    public var validateAuth: ValidateAuth
    public var registration: RegistrationSettings?
    public var dataLinks: [DataLink]
    /// The APIs this environment's tokens may be for; a scope declared here wins over the
    /// organization's declaration of it (docs/api-resources.md).
    public var apiResources: [APIResource] = []
    /// How its clients must authenticate at the token, PAR, introspection, revocation and device
    /// endpoints; nil: with `appSecret` (Basic or `client_secret`), docs/client-authentication.md.
    public var clientAuth: ClientAuthSettings?
    /// Authorization requests must come as signed request objects (RFC 9101), by value or
    /// pushed; needs a JWT `clientAuth` (docs/client-authentication.md).
    public var requireSignedRequestObject = false
    /// How the hosted pages look for this environment's apps (docs/configuration.md, "Branding").
    public var branding: PageBranding?
    public var location: SourceLocation
    public var keyPath: String

    /// An environment as the configuration reader makes one; built in code, every setting left
    /// out has its documented default (`validateAuth: optional`, no registration, no data links).
    public init(appKey: String, appSecret: String? = nil, name: String? = nil, organization: String? = nil,
                defaultAuthService: String? = nil, authServices: [AuthService] = [], validateAuth: ValidateAuth = .optional,
                registration: RegistrationSettings? = nil, dataLinks: [DataLink] = [], apiResources: [APIResource] = [],
                location: SourceLocation = .builtInCode, keyPath: String = "") {
        self.appKey = appKey
        self.appSecret = appSecret
        self.name = name
        self.organization = organization
        self.defaultAuthService = defaultAuthService
        self.authServices = authServices
        self.validateAuth = validateAuth
        self.registration = registration
        self.dataLinks = dataLinks
        self.apiResources = apiResources
        self.location = location
        self.keyPath = keyPath
    }
}

/// Dynamic registration of mobile app instances (docs/configuration.md, "registration").
public struct RegistrationSettings: Sendable {
    public var initialAccessTokens: [String]
    /// software_id → whom to trust for that software's statements.
    public var softwareStatements: [String: SoftwareStatementTrust]

    public init(initialAccessTokens: [String], softwareStatements: [String: SoftwareStatementTrust] = [:]) {
        self.initialAccessTokens = initialAccessTokens
        self.softwareStatements = softwareStatements
    }
}

/// The keys (and optionally the issuer) a software's statements must come from.
public struct SoftwareStatementTrust: Sendable, Equatable {
    /// JWKS (JSON text) whose keys sign the statements.
    public var jwks: String
    /// When set, a statement's `iss` must equal it exactly.
    public var issuer: String?

    public init(jwks: String, issuer: String? = nil) {
        self.jwks = jwks
        self.issuer = issuer
    }
}

/// A backend the gateway forwards to (docs/configuration.md, "dataLinks").
public struct DataLink: Sendable {
    public var name: String
    public var url: URL
    public var authKey: String?
    /// Auth services whose tokens may use this link; `nil` means all of the environment's.
    public var authServices: [String]?
    public var timeoutSeconds: Int
    /// Only tokens of sign-ins that included a second factor may use the link; others get the
    /// RFC 9470 challenge (`insufficient_user_authentication`) to step up.
    public var requireMfa = false

    /// A data link as configuration would read it; built in code (tests), `authServices` nil
    /// (every auth service of the environment) and no second factor required unless set.
    public init(name: String, url: URL, authKey: String? = nil, authServices: [String]? = nil, timeoutSeconds: Int,
                requireMfa: Bool = false) {
        self.name = name
        self.url = url
        self.authKey = authKey
        self.authServices = authServices
        self.timeoutSeconds = timeoutSeconds
        self.requireMfa = requireMfa
    }
}
