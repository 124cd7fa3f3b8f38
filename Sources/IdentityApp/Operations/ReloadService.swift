import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import Logging
import OAuthEngine
import ServiceLifecycle
import UnixSignals

/// Reloads `console-config/` on SIGHUP without dropping requests
/// (docs/configuration.md, "Reloading"). A configuration with problems is rejected and the old one
/// stays. A renewed TLS certificate (`server.tls`, its files re-read) is served to connections
/// accepted after the reload; open connections keep theirs. Storage, issuer and turning TLS on or
/// off need a restart.
public struct ReloadService: Service {
    let prepared: PreparedBroker
    let logger: Logger

    public init(prepared: PreparedBroker, logger: Logger) {
        self.prepared = prepared
        self.logger = logger
    }

    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload()
        }
    }

    /// Loads, checks and swaps in the configuration; returns whether it took effect.
    @discardableResult
    public func reload() async -> Bool {
        let engine = prepared.engine
        do {
            let (config, directory) = try BrokerBootstrap.loadConfig(
                directory: prepared.options.configDirectory, registry: prepared.registry, issuer: engine.issuer,
                environment: prepared.environment, clock: engine.clock, logger: logger)
            let old = engine.state
            var keys = old.keys
            if config.signingAlgorithm != old.config.signingAlgorithm {
                keys = try await SigningKeyStorage.load(
                    store: engine.storage.signingKeys, vault: engine.vault, algorithm: config.signingAlgorithm.jose,
                    clock: engine.clock, retention: EngineContext.keyRetention(for: config), blocking: BlockingPool())
            }
            if config.storage != old.config.storage || config.server.issuer != old.config.server.issuer {
                logger.warning("storage and issuer changes take effect after a restart")
            }
            var vault = old.vault
            if let vaultKeys = config.vaultKeys, !vaultKeys.isEmpty {
                vault = try Vault(keys: vaultKeys.map { try Vault.Key(id: $0.id, bytes: $0.secret) })
                let missing = Set(old.vault.keys.map(\.id)).subtracting(vault.keys.map(\.id))
                if !missing.isEmpty {
                    logger.warning("vault keys removed; values still sealed under them cannot be opened",
                                   metadata: ["removed": .array(missing.sorted().map { .string($0) })])
                }
            }
            try reloadTLS(config.server.tls)
            // New connectors start without IdP metadata: load it before they serve.
            await engine.connectorMetadata.refresh(force: true, directory: directory)
            engine.replaceState(EngineState(config: config, directory: directory, keys: keys, vault: vault))
            // A key made by `idconnect keys rotate` becomes the one that signs, now.
            if let ring = try await engine.signingKeys.adoptStored() {
                logger.info("signing keys reloaded", metadata: ["active": "\(ring.active.kid)"])
            }
            logger.info("configuration reloaded", metadata: ["environments": "\(config.environments.count)"])
            return true
        } catch let problems as ConfigProblems {
            logger.error("configuration reload rejected; the previous configuration stays",
                         metadata: ["problems": .array(problems.problems.map { .string($0.description) })])
        } catch {
            logger.error("configuration reload failed; the previous configuration stays", metadata: ["error": "\(error)"])
        }
        return false
    }

    /// Swaps in a renewed certificate and key, after the rest of the new configuration was read
    /// and before it is swapped in: a refused pair leaves both the old configuration and the old
    /// certificate in place.
    private func reloadTLS(_ settings: TLSSettings?) throws {
        switch (prepared.tls, settings) {
        case (let source?, let settings?):
            if try source.replace(with: settings) {
                logger.info("TLS certificate reloaded; new connections get it",
                            metadata: ["certificate": "\(settings.certificateSummary)"])
            }
        case (nil, nil):
            break
        default:
            logger.warning("turning server.tls on or off takes effect after a restart")
        }
    }
}
