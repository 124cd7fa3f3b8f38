import Foundation
import GeoIP
import IdentityConfig
import IdentityCore
import JOSE
import SQLiteStore
import StoreContracts
import Logging
import OAuthEngine
import PostgresStore

/// Everything `serve` needs, loaded and checked, before the HTTP server starts.
public struct PreparedBroker: Sendable {
    public let engine: BrokerEngine
    public let settings: BrokerSettings
    public let registry: ConnectorRegistry
    public let options: ServeOptions
    public let environment: [String: String]
    public let metrics: MetricsRegistry
    /// The TLS context new connections get, when `server.tls` is configured (reloaded on SIGHUP).
    public let tls: TLSContextSource?
    /// Held while this broker serves a SQLite database (`serve` only; nil otherwise).
    public let sqliteLock: SQLiteInstanceLock?
}

/// Loads configuration, opens storage and the vault, loads signing keys, builds connectors.
public enum BrokerBootstrap {
    /// Loads and checks `console-config/` and builds every connector (what `config check` runs).
    /// Every problem — file syntax, keys, references, connector options — is thrown together.
    /// Connectors learn the issuer (their callback URLs derive from it): `issuer`, else the one
    /// `options` (the `serve` flags) and the configuration give.
    public static func loadConfig(directory: String, registry: ConnectorRegistry, issuer: String? = nil,
                                  options: ServeOptions? = nil,
                                  environment: [String: String] = ProcessInfo.processInfo.environment,
                                  clock: any BrokerClock = SystemClock(),
                                  logger: Logger = Logger(label: "idconnect")) throws -> (BrokerConfig, ClientDirectory) {
        let loader = ConfigLoader(environment: environment, supportedStorageSchemes: supportedStorage)
        let (config, initialProblems) = try loader.loadCollectingProblems(directory: directory)
        var problems = initialProblems
        let issuer = issuer ?? (try? BrokerSettings(options: options ?? ServeOptions(configDirectory: directory), config: config))?.issuer
        var clientDirectory: ClientDirectory?
        do {
            clientDirectory = try buildDirectory(config: config, issuer: issuer ?? "http://127.0.0.1:8080",
                                                 registry: registry, clock: clock, logger: logger)
        } catch let connectorProblems as ConfigProblems {
            problems += connectorProblems.problems
        }
        guard problems.isEmpty, let clientDirectory else {
            throw ConfigProblems(problems.sorted { ($0.location.file, $0.location.line) < ($1.location.file, $1.location.line) })
        }
        return (config, clientDirectory)
    }

    /// Fetches and checks the IdP metadata of every connector that reads it (SAML
    /// `idpMetadataUrl`, `idpMetadata`), as `idconnect config check` does: problems located at
    /// the option that names the metadata. Nothing is stored.
    public static func checkMetadata(_ directory: ClientDirectory) async -> [ConfigProblem] {
        var seen: Set<String> = []
        var connectors: [any MetadataRefreshingConnector] = []
        for entry in directory.environments.values {
            for service in entry.services.values where seen.insert(service.namespace).inserted {
                if let connector = service.connector as? any MetadataRefreshingConnector { connectors.append(connector) }
            }
        }
        return await withTaskGroup(of: [ConfigProblem].self) { group in
            for connector in connectors { group.addTask { await connector.checkMetadata() } }
            return await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// Storage schemes this build opens.
    public static let supportedStorage: Set<String> = ["sqlite", "postgres", "postgresql"]

    static func buildDirectory(config: BrokerConfig, issuer: String, registry: ConnectorRegistry,
                               clock: any BrokerClock, logger: Logger) throws -> ClientDirectory {
        try ClientDirectory.build(config: config, registry: registry) { service in
            ConnectorContext(issuer: issuer, authServiceId: service.id, clock: clock,
                             logger: logger.with("authService", service.id), blocking: BlockingPool(),
                             networkBlocking: BlockingPool.network)
        }
    }

    /// Loads the configuration, opens storage and the vault, loads the signing keys (making the
    /// first one with `generateSigningKey` when storage has none) and builds the engine. Tests
    /// that start many brokers pass a generator that reuses key material: RSA generation is the
    /// costliest step of a start.
    ///
    /// `serving` (what `idconnect serve` passes) first checks that the listening addresses are free
    /// — a port in use is refused before anything is created — and then takes the SQLite
    /// database's instance lock (``SQLiteInstanceLock``), held as long as the returned broker.
    public static func prepare(options: ServeOptions, registry: ConnectorRegistry, serving: Bool = false,
                               clock: any BrokerClock = SystemClock(),
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               generateSigningKey: @escaping @Sendable (JOSEAlgorithm) throws -> SigningKey = SigningKey.generate,
                               logger: Logger) async throws -> PreparedBroker {
        let (config, directory) = try loadConfig(directory: options.configDirectory, registry: registry,
                                                 issuer: options.issuer, options: options, environment: environment, clock: clock, logger: logger)
        let settings = try BrokerSettings(options: options, config: config)
        // Everything is checked before storage is touched: a refused start migrates nothing.
        let tls = try config.server.tls.map { try TLSContextSource($0) }
        for warning in try preflight(config: config, storage: settings.storage) {
            logger.warning("\(warning)")
        }
        var sqliteLock: SQLiteInstanceLock?
        if serving {
            try PortProbe.check(host: settings.host, port: settings.port)
            if let admin = settings.admin { try PortProbe.check(host: admin.host, port: admin.port, what: "server.adminPort") }
            if case .sqlite(let path) = settings.storage { sqliteLock = try SQLiteInstanceLock(databasePath: path) }
        }
        let locator = try openLocator(config.server.geoip)
        let store = try await openStore(settings.storage)
        let vault = try openVault(config: config, storage: settings.storage, logger: logger)
        let keys = try await SigningKeyStorage.load(
            store: store, vault: vault, algorithm: config.signingAlgorithm.jose,
            clock: clock, retention: EngineContext.keyRetention(for: config), blocking: BlockingPool(),
            generate: generateSigningKey)
        let metrics = MetricsRegistry()
        metrics.prepare(connectorTypes: Set((config.environments.flatMap(\.authServices)
            + config.organizations.flatMap(\.authServices)).map(\.provider.type)))
        let audit = try AuditFile.trail(config.server.audit, metrics: metrics, clock: clock, logLevel: logger.logLevel)
        let engine = BrokerEngine(issuer: settings.issuer,
                                  state: EngineState(config: config, directory: directory, keys: keys, vault: vault),
                                  storage: StoreRoles(all: store), clock: clock, logger: logger, metrics: metrics, audit: audit,
                                  locator: locator, clientKeys: HTTPClientKeyFetcher(), logoutDelivery: HTTPLogoutTokenDelivery(),
                                  permissionDelivery: HTTPPermissionNotification())
        // IdP metadata (SAML idpMetadataUrl): the last good copy from storage, then a fetch. One
        // that fails leaves its auth service answering temporarily_unavailable; it does not stop
        // the start (docs/connectors/saml.md, "IdP metadata").
        await engine.connectorMetadata.refresh(force: true)
        return PreparedBroker(engine: engine, settings: settings, registry: registry, options: options,
                              environment: environment, metrics: metrics, tls: tls, sqliteLock: sqliteLock)
    }

    /// The GeoIP database of `server.geoip`, opened (memory-mapped) before storage is touched.
    static func openLocator(_ settings: GeoIPSettings?) throws -> (any AddressLocator)? {
        guard let settings else { return nil }
        do {
            return try MaxMindLocator(path: settings.database)
        } catch {
            throw BootstrapError("server.geoip.database: \(error)")
        }
    }

    public static func openStore(_ location: StorageLocation) async throws -> any BrokerStore {
        switch location {
        case .sqlite(let path):
            do {
                return try SQLiteStore(path: path)
            } catch {
                throw BootstrapError("cannot open SQLite database at \(path): \(error)")
            }
        case .postgres(let url):
            do {
                return try await PostgresStore.open(url: url)
            } catch {
                // The messages name the server and the reason, never the password.
                throw BootstrapError("\(error)")
            }
        }
    }

    /// Checks what only storage would otherwise find out — the PostgreSQL URL parses, shared
    /// storage has `vault.keys`, the vault keys (configured, or SQLite's local key file) open —
    /// without connecting, creating or writing anything. Returns the warnings worth an
    /// operator's attention (an unverified connection to a remote database).
    public static func preflight(config: BrokerConfig, storage: StorageLocation) throws -> [String] {
        if let keys = config.vaultKeys, !keys.isEmpty {
            _ = try configuredVault(keys)
        }
        if let file = config.server.audit.file {
            let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw BootstrapError("server.audit.file: the directory \(directory) does not exist")
            }
        }
        switch storage {
        case .sqlite(let path):
            if config.vaultKeys?.isEmpty ?? true { _ = try localVaultKey(nextTo: path) }
            return []
        case .postgres(let url):
            let settings: PostgresSettings
            do {
                settings = try PostgresSettings(url: url)
            } catch {
                throw BootstrapError("\(error)")
            }
            if config.vaultKeys?.isEmpty ?? true {
                throw BootstrapError("vault.keys must be configured when storage is shared (PostgreSQL)")
            }
            return settings.unverifiedRemoteWarning.map { [$0] } ?? []
        }
    }

    private static func configuredVault(_ keys: [VaultKeySetting]) throws -> Vault {
        do {
            return try Vault(keys: keys.map { try Vault.Key(id: $0.id, bytes: $0.secret) })
        } catch {
            throw BootstrapError("vault.keys: \(error)")
        }
    }

    /// SQLite's local vault key file: its path, and its key when the file exists.
    private static func localVaultKey(nextTo databasePath: String) throws -> (path: String, key: Vault.Key?) {
        let keyFile = URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("vault.key").path
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            if FileManager.default.fileExists(atPath: keyFile) { throw BootstrapError("cannot read vault key file \(keyFile)") }
            return (keyFile, nil)
        }
        guard let text = String(data: data, encoding: .utf8),
              let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw BootstrapError("\(keyFile) exists but does not hold a base64 32-byte key")
        }
        return (keyFile, try Vault.Key(id: "local", bytes: Array(bytes)))
    }

    /// The vault from `vault.keys`, or — for a single SQLite instance — a key file next to the
    /// database, created on first start (mode 0600).
    public static func openVault(config: BrokerConfig, storage: StorageLocation, logger: Logger) throws -> Vault {
        if let keys = config.vaultKeys, !keys.isEmpty {
            return try configuredVault(keys)
        }
        guard case .sqlite(let path) = storage else {
            throw BootstrapError("vault.keys must be configured when storage is shared (PostgreSQL)")
        }
        let (keyFile, existing) = try localVaultKey(nextTo: path)
        if let existing { return try Vault(keys: [existing]) }
        let material = Vault.generateKeyMaterial()
        guard FileManager.default.createFile(atPath: keyFile, contents: Data((material + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw BootstrapError("cannot create vault key file \(keyFile)")
        }
        logger.warning("no vault.keys configured: created a local vault key file; configure vault.keys for production",
                       metadata: ["file": "\(keyFile)"])
        return try Vault(keys: [Vault.Key(id: "local", bytes: Array(Data(base64Encoded: material)!))])
    }
}

extension Logger {
    func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy[metadataKey: key] = .string(value)
        return copy
    }
}
