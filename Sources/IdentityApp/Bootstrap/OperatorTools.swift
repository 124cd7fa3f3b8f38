import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts
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

    public var keyRetention: TimeInterval { EngineContext.keyRetention(for: config) }

    /// Generates a new active signing key; returns its kid.
    public func rotateSigningKey() async throws -> String {
        let algorithm = config.signingAlgorithm.jose
        return try await SigningKeyStorage.rotate(store: store, vault: vault, algorithm: algorithm, clock: clock,
                                               retention: keyRetention, blocking: BlockingPool())
    }

    /// What `vault rotate` did.
    public struct VaultRotation: Sendable, CustomStringConvertible {
        public var resealed = 0
        public var alreadyCurrent = 0
        /// Changed by the running broker meanwhile (already sealed under the new key by it).
        public var changedMeanwhile = 0

        public var description: String {
            "re-sealed \(resealed), already under the active key \(alreadyCurrent), changed meanwhile \(changedMeanwhile)"
        }
    }

    /// Re-seals every stored upstream token, signing key and grace response under the active
    /// vault key, while brokers keep serving (each row is swapped only if unchanged).
    public func rotateVault(batchSize: Int = 500) async throws -> VaultRotation {
        var result = VaultRotation()
        for kind in SealedValue.Kind.allCases {
            var cursor: String?
            while true {
                let page = try await store.sealedValues(kind, after: cursor, limit: batchSize)
                guard let last = page.last else { break }
                cursor = last.id
                for value in page {
                    guard let resealed = try vault.reseal(value.data, Self.binding(for: value)) else {
                        result.alreadyCurrent += 1
                        continue
                    }
                    if try await store.replaceSealed(value, with: resealed) {
                        result.resealed += 1
                    } else {
                        result.changedMeanwhile += 1
                    }
                }
            }
        }
        return result
    }

    static func binding(for value: SealedValue) -> Vault.Binding {
        switch value.kind {
        case .sessionUpstream: VaultBindings.upstream(sessionId: value.id, authServiceId: value.scope)
        case .signingKey: VaultBindings.signingKey(kid: value.id)
        case .refreshGrace: VaultBindings.grace(familyId: value.id)
        }
    }
}
