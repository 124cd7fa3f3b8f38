import Foundation
import IdentityConfig
import IdentityCore
import Logging
import StoreContracts
import Tracing

/// What every part of the engine shares: the issuer, the clock, logs and metrics, and the live
/// (reloadable) state. Storage is not here: each part holds the store roles it uses as its own
/// properties, given by the composition root (`BrokerEngine.init`).
public struct EngineContext: Sendable {
    public let issuer: String
    public let clock: any BrokerClock
    public let logger: Logger
    public let metrics: any BrokerMetricsSink
    /// Who signed in, which sign-ins failed, which sessions ended and why.
    public let audit: AuditTrail
    public let live: LiveState

    public init(issuer: String, clock: any BrokerClock, logger: Logger,
                metrics: any BrokerMetricsSink, audit: AuditTrail, live: LiveState) {
        self.issuer = issuer
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.audit = audit
        self.live = live
    }

    public var state: EngineState { live.snapshot }
    public var vault: Vault { live.snapshot.vault }

    /// The longest time a token signed now stays valid: how long a retired key stays published,
    /// and how long a family's access tokens may outlive its last issuance.
    public static func keyRetention(for config: BrokerConfig) -> TimeInterval {
        let ttls = (config.environments.flatMap(\.authServices) + config.organizations.flatMap(\.authServices)).map(\.tokenTtl)
        return TimeInterval((ttls.max() ?? AuthService.defaultTokenTtl) + 300)
    }
}

extension EngineContext {
    /// Revocation that reaches one app's grants (see `AppRevocation`), with the access-token
    /// window of the current configuration.
    func appRevocation(families: any TokenFamilyStore, sessions: any SessionStore) -> AppRevocation {
        AppRevocation(families: families, sessions: sessions, accessTokenWindow: Self.keyRetention(for: state.config))
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}

extension OAuthError {
    /// What an unexpected failure in step `what` answers: an OAuth error as it is, an unreachable
    /// database 503 `temporarily_unavailable` (found by the soak run: sign-ins answered 500 while
    /// PostgreSQL restarted), anything else a logged 500 without details.
    public static func wrapping(_ error: any Error, _ what: String) -> OAuthError {
        switch error {
        case let error as OAuthError: error
        case let failure as AuthorizationFailure: failure.error
        case let error as StorageUnavailable: .unavailable("The service is temporarily unavailable; try again.", debug: "\(what): \(error)")
        default: .internalFailure("\(what): \(error)")
        }
    }
}
