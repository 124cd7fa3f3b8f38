import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import Logging
import OAuthEngine
import StaticConnector
import StoreContracts
import StoreTesting

/// A `BrokerEngine` built in Swift for unit tests of its parts (docs/testing.md, "Engine unit
/// tests"): the configuration, connectors, signing keys and vault made in code, storage in memory
/// (`MemoryStore`), time from a `ManualClock`. No YAML, no files, no sockets: a test calls the
/// parts through their public API (`engine.tokens`, `engine.authorize`, `engine.secondStep`, …)
/// and moves the clock instead of sleeping.
///
/// The default configuration is that of the HTTP tests' `TestBroker.defaultConfig()`: one
/// environment (`kid_test`) whose `static` auth services (`users`, `opaque`, `norefresh`, `page`,
/// `styled`) know alice and bob. Other set-ups pass their own environments, built with
/// ``environment(appKey:appSecret:services:defaultService:_:)`` and ``service(_:users:redirectURIs:_:)``.
public struct EngineFixture: Sendable {
    public let engine: BrokerEngine
    public let clock: ManualClock
    /// The engine's storage, for what no engine API shows (a family left behind, a row's state).
    public let storage: StoreRoles

    public static let issuer = "http://127.0.0.1:8080"
    /// The issuer as it stands in a redirect's query (`iss`, RFC 9207).
    public static let encodedIssuer = "http%3A%2F%2F127.0.0.1%3A8080"
    public static let appKey = "kid_test"
    public static let appSecret = "test-app-secret-1234"
    public static let redirect = "https://app.example.com/cb"
    public static let nativeRedirect = "com.example.app:/oauth2redirect"
    /// The PKCE verifier the helpers send, and its S256 challenge.
    public static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-abcdefgh"
    public static var challenge: String { PKCE.challenge(for: verifier) }
    /// The vault's one key: fixed, so what a test seals it can open in another engine.
    public static let vaultKey = try! Vault.Key(id: "test", bytes: Array(repeating: 7, count: 32))
    /// The connectors the fixture can build: `static` only (it needs no network).
    public static let connectors = ConnectorRegistry([StaticConnectorFactory()])

    /// Builds the engine as `BrokerBootstrap.prepare` does, from values instead of files: the
    /// client directory with real connectors, the first signing key made and stored by
    /// `SigningKeyStorage`, a new `MemoryStore`.
    /// - Parameters:
    ///   - issuer: the broker's issuer (passkeys need a domain: `http://localhost:8080`).
    ///   - signing: the signing algorithm; RS256 keys reuse one key's material per process
    ///     (``TestSigningKeys``).
    ///   - throttle: the login throttle's policy.
    ///   - clientKeys: where `private_key_jwt` clients' `jwksUri` sets come from.
    ///   - logoutDelivery: how back-channel logout tokens reach relying parties (`engine.logoutNotifier`).
    ///   - permissionDelivery: where permission requests' status changes are posted (docs/consent.md).
    ///   - audit: where audit events go (a trail with a recording sink, to check them).
    public init(environments: [Environment] = [EngineFixture.environment()], organizations: [Organization] = [],
                issuer: String = EngineFixture.issuer, server: ServerSettings = ServerSettings(), signing: SigningAlgorithm = .rs256,
                registry: ConnectorRegistry = EngineFixture.connectors, clock: ManualClock = ManualClock(),
                throttle: LoginThrottle = LoginThrottle(), locator: (any AddressLocator)? = nil,
                clientKeys: (any ClientKeyFetching)? = nil, logoutDelivery: (any LogoutTokenDelivering)? = nil,
                permissionDelivery: (any PermissionNotifying)? = nil, audit: AuditTrail? = nil) async throws {
        var logger = Logger(label: "engine-fixture")
        logger.logLevel = .critical
        let config = BrokerConfig(server: server, signingAlgorithm: signing, organizations: organizations, environments: environments,
                                  directory: URL(fileURLWithPath: "/nonexistent/built-in-code"))
        let directory = try ClientDirectory.build(config: config, registry: registry) { service in
            ConnectorContext(issuer: issuer, authServiceId: service.id, clock: clock, logger: logger, blocking: InlineBlocking())
        }
        let vault = try Vault(keys: [Self.vaultKey])
        let storage = MemoryStore.open()
        let keys = try await SigningKeyStorage.load(store: storage.signingKeys, vault: vault, algorithm: signing.jose, clock: clock,
                                                    retention: EngineContext.keyRetention(for: config), blocking: InlineBlocking(),
                                                    generate: TestSigningKeys.make)
        engine = BrokerEngine(issuer: issuer, state: EngineState(config: config, directory: directory, keys: keys, vault: vault),
                              storage: storage, clock: clock, logger: logger, audit: audit, throttle: throttle, locator: locator,
                              clientKeys: clientKeys, logoutDelivery: logoutDelivery, permissionDelivery: permissionDelivery)
        self.clock = clock
        self.storage = storage
    }
}

/// Runs blocking work (the static connector's password hashing) on the calling task: the
/// fixture's hashes have the minimum cost, and a unit test has no event loop to keep free.
public struct InlineBlocking: BlockingWorkRunner {
    public init() {}

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T { try work() }
}

/// A helper's expectation about the engine's answer did not hold.
public struct UnexpectedOutcome: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
