import Foundation
import Logging
import OAuthEngine
import ServiceLifecycle

/// Picks up signing keys rotated elsewhere (`idconnect keys rotate`, another instance) within
/// seconds: every `interval` it compares the stored keys with this instance's ring and adopts
/// them when they differ (one small read; nothing is generated or retired here). Tokens signed
/// with the new key then verify everywhere and the JWKS publishes it at once
/// (docs/operations.md, "Signing keys").
public struct KeyWatchService: Service {
    let engine: BrokerEngine
    let interval: Duration
    let logger: Logger

    public init(engine: BrokerEngine, interval: Duration = .seconds(5), logger: Logger) {
        self.engine = engine
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await periodically(every: interval) { await runOnce() }
    }

    public func runOnce() async {
        do {
            if let ring = try await engine.signingKeys.adoptStored() {
                logger.info("signing keys changed in storage; adopted", metadata: ["active": "\(ring.active.kid)"])
            }
        } catch {
            logger.warning("signing keys could not be checked", metadata: ["error": "\(error)"])
        }
    }
}
