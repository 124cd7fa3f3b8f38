import Foundation
import IdentityConfig
import IdentityCore
import Logging
import StoreContracts
import Tracing

/// What every part of the engine shares: the issuer, storage, the clock, logs and metrics, and
/// the live (reloadable) state. Parts take the store roles they use from `store`.
public struct EngineContext: Sendable {
    public let issuer: String
    public let store: any BrokerStore
    public let clock: any BrokerClock
    public let logger: Logger
    public let metrics: any BrokerMetricsSink
    /// Who signed in, which sign-ins failed, which sessions ended and why.
    public let audit: AuditTrail
    public let live: LiveState

    public init(issuer: String, store: any BrokerStore, clock: any BrokerClock, logger: Logger,
                metrics: any BrokerMetricsSink, audit: AuditTrail, live: LiveState) {
        self.issuer = issuer
        self.store = store
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

    /// Revocation that reaches one app's grants (see `AppRevocation`).
    var appRevocation: AppRevocation {
        AppRevocation(store: store, accessTokenWindow: Self.keyRetention(for: state.config))
    }
}

/// Runs `body` in a trace span named `what` (usually one store call), turning storage and other
/// unexpected failures into OAuth errors: an unreachable database is 503
/// `temporarily_unavailable`, anything else a logged 500 without details.
func guarded<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await withSpan(what, ofKind: .internal) { _ in try await body() }
    } catch let error as OAuthError {
        throw error
    } catch let failure as AuthorizationFailure {
        throw failure.error
    } catch let ended as SessionEnded {
        throw ended
    } catch let error as StorageUnavailable {
        throw OAuthError.unavailable("The service is temporarily unavailable; try again.", debug: "\(what): \(error)")
    } catch {
        throw OAuthError.internalFailure("\(what): \(error)")
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
