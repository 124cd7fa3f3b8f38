import Foundation
import IdentityConfig
import IdentityCore
import IdentityStore
import Logging
import OAuthEngine

/// What operator commands (`keys rotate`, `vault rotate`) need: the configuration, storage and
/// the vault, opened exactly as `serve` opens them, without starting a server.
public struct OperatorTools: Sendable {
    public let config: BrokerConfig
    public let store: any BrokerStore
    public let vault: Vault
    public let clock: any BrokerClock

    public static func open(configDirectory: String, storage: String?, registry: ConnectorRegistry,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            clock: any BrokerClock = SystemClock(), logger: Logger) async throws -> OperatorTools {
        let options = ServeOptions(configDirectory: configDirectory, storage: storage)
        let (config, _) = try BrokerBootstrap.loadConfig(directory: configDirectory, registry: registry,
                                                         environment: environment, clock: clock, logger: logger)
        let settings = try BrokerSettings(options: options, config: config)
        let store = try await BrokerBootstrap.openStore(settings.storage)
        let vault = try BrokerBootstrap.openVault(config: config, storage: settings.storage, logger: logger)
        return OperatorTools(config: config, store: store, vault: vault, clock: clock)
    }

    public var keyRetention: TimeInterval { BrokerEngine.keyRetention(for: config) }

    /// Generates a new active signing key; returns its kid.
    public func rotateSigningKey() async throws -> String {
        let algorithm = JWSAlgorithm(rawValue: config.signingAlgorithm.rawValue) ?? .rs256
        return try await SigningKeyRing.rotate(store: store, vault: vault, algorithm: algorithm, clock: clock,
                                               retention: keyRetention, blocking: BlockingPool())
    }
}
