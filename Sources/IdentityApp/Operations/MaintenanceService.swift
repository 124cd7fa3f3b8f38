import Foundation
import IdentityCore
import JOSE
import Logging
import OAuthEngine
import ServiceLifecycle

/// Background housekeeping (docs/operations.md, "Housekeeping"): deletes expired codes, sessions,
/// tokens and throttle counters (keeping at most `LoginThrottle.maxCounters` of them), and picks up
/// signing keys rotated by `idconnect keys rotate` or another instance.
public struct MaintenanceService: Service {
    let engine: BrokerEngine
    let interval: Duration
    let logger: Logger

    public init(engine: BrokerEngine, interval: Duration, logger: Logger) {
        self.engine = engine
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await periodically(every: interval) { await runOnce() }
    }

    public func runOnce() async {
        do {
            let removed = try await engine.storage.maintenance.purgeExpired(before: engine.clock.now())
                + engine.registration.purgeUnboundInstances()
            try await engine.storage.throttle.capThrottle(maxRows: engine.throttle.maxCounters)
            if removed > 0 { logger.info("expired records removed", metadata: ["count": "\(removed)"]) }
            try await reloadKeysIfChanged()
        } catch {
            logger.warning("maintenance failed", metadata: ["error": "\(error)"])
        }
    }

    /// Rebuilds the key ring when storage holds a different set of keys.
    public func reloadKeysIfChanged() async throws {
        let state = engine.state
        let stored = try await engine.storage.signingKeys.signingKeys()
        let now = engine.clock.now()
        guard SigningKeyStorage.liveKids(stored, at: now) != Set(state.keys.verificationKeys.keys) else { return }
        let algorithm = state.config.signingAlgorithm.jose
        let ring = try await SigningKeyStorage.load(store: engine.storage.signingKeys, vault: engine.vault, algorithm: algorithm, clock: engine.clock,
                                                 retention: EngineContext.keyRetention(for: state.config), blocking: BlockingPool())
        engine.updateKeys(ring)
        logger.info("signing keys reloaded", metadata: ["active": "\(ring.active.kid)"])
    }
}
