import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts
import Logging
import OAuthEngine

/// What operator commands (`keys rotate`, `vault rotate`, `sessions`, `instances`) need: the
/// configuration, storage, the vault and the audit trail, opened exactly as `serve` opens them,
/// without starting a server. They work while brokers run: every change is a row operation the
/// running brokers see on their next read.
public struct OperatorTools: Sendable {
    public let config: BrokerConfig
    public let store: any BrokerStore
    public let vault: Vault
    public let clock: any BrokerClock
    /// Operator actions are audit events too (on this process's log and the audit file).
    public let audit: AuditTrail

    public static func open(configDirectory: String, storage: String?, registry: ConnectorRegistry,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            clock: any BrokerClock = SystemClock(), logger: Logger) async throws -> OperatorTools {
        let options = ServeOptions(configDirectory: configDirectory, storage: storage)
        let (config, _) = try BrokerBootstrap.loadConfig(directory: configDirectory, registry: registry,
                                                         environment: environment, clock: clock, logger: logger)
        let settings = try BrokerSettings(options: options, config: config)
        for warning in try BrokerBootstrap.preflight(config: config, storage: settings.storage) {
            logger.warning("\(warning)")
        }
        let store = try await BrokerBootstrap.openStore(settings.storage)
        let vault = try BrokerBootstrap.openVault(config: config, storage: settings.storage, logger: logger)
        let audit = try AuditFile.trail(config.server.audit, metrics: NoMetrics(), clock: clock, logLevel: logger.logLevel)
        return OperatorTools(config: config, store: store, vault: vault, clock: clock, audit: audit)
    }

    public var keyRetention: TimeInterval { EngineContext.keyRetention(for: config) }

    /// Generates a new active signing key; returns its kid.
    public func rotateSigningKey() async throws -> String {
        let algorithm = config.signingAlgorithm.jose
        let kid = try await SigningKeyStorage.rotate(store: store, vault: vault, algorithm: algorithm, clock: clock,
                                                     retention: keyRetention, blocking: BlockingPool())
        audit.record(AuditEvent(.signingKeyRotated, ["kid": kid, "algorithm": algorithm.rawValue, "by": "operator"]))
        return kid
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
    /// `progress` hears after every page how many values were looked at so far.
    public func rotateVault(batchSize: Int = 500, progress: (@Sendable (Int) -> Void)? = nil) async throws -> VaultRotation {
        var result = VaultRotation()
        defer {
            audit.record(AuditEvent(.vaultRotated, [
                "key": vault.activeKeyId, "resealed": String(result.resealed), "already_current": String(result.alreadyCurrent),
                "changed_meanwhile": String(result.changedMeanwhile), "by": "operator"]))
        }
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
                progress?(result.resealed + result.alreadyCurrent + result.changedMeanwhile)
            }
        }
        return result
    }

    static func binding(for value: SealedValue) -> Vault.Binding {
        switch value.kind {
        case .sessionUpstream: VaultBindings.upstream(sessionId: value.id, authServiceId: value.scope)
        case .signingKey: VaultBindings.signingKey(kid: value.id)
        case .refreshGrace: VaultBindings.grace(familyId: value.id)
        case .mfaTOTP: VaultBindings.totp(subject: value.id, namespace: value.scope)
        }
    }
}
