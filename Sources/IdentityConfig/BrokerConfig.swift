import Foundation
import IdentityCore

/// The whole `console-config/` directory, read and checked (SPEC §2).
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

    public init(issuer: String? = nil, host: String? = nil, port: Int? = nil, trustedProxies: [IPAddressRange] = []) {
        self.issuer = issuer
        self.host = host
        self.port = port
        self.trustedProxies = trustedProxies
    }
}

/// One vault key: the first one seals, every one opens (SPEC §2, §4).
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
    public var location: SourceLocation
    public var keyPath: String
}

/// An environment: an app's App Key, its secret and its auth services (SPEC §2).
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
    public var location: SourceLocation
    public var keyPath: String
}

/// Dynamic registration of mobile app instances (SPEC §3.8).
public struct RegistrationSettings: Sendable {
    public var initialAccessTokens: [String]
    /// software_id → whom to trust for that software's statements.
    public var softwareStatements: [String: SoftwareStatementTrust]
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

/// A backend the gateway forwards to (SPEC §5).
public struct DataLink: Sendable {
    public var name: String
    public var url: URL
    public var authKey: String?
    /// Auth services whose tokens may use this link; `nil` means all of the environment's.
    public var authServices: [String]?
    public var timeoutSeconds: Int
}

/// A Kinvey-shaped auth service (SPEC §2). Defaults per SPEC §3.4.
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
    public var tokenFormat: TokenFormat
    public var customizedLogin: CustomizedLogin?
    public var provider: ProviderSettings
    /// Where it was defined, for problems.
    public var location: SourceLocation
    public var keyPath: String

    public static let defaultGrantTtl = 60
    public static let defaultTokenTtl = 3600
    public static let defaultRefreshTtl = 1_209_600
}
