import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts
import Logging
import Synchronization

/// What changes on reload or key rotation: the configuration, its clients and the signing keys.
public struct EngineState: Sendable {
    public var config: BrokerConfig
    public var directory: ClientDirectory
    public var keys: SigningKeyRing
    /// Reloadable so `vault.keys` can gain a new key for `idconnect vault rotate` without a restart.
    public var vault: Vault

    public init(config: BrokerConfig, directory: ClientDirectory, keys: SigningKeyRing, vault: Vault) {
        self.config = config
        self.directory = directory
        self.keys = keys
        self.vault = vault
    }
}

/// The OAuth engine: authorization, sign-in, token issuance and validation, with no HTTP in
/// sight. Controllers translate requests into calls on it.
public final class BrokerEngine: Sendable {
    public let issuer: String
    public let store: any BrokerStore
    public let clock: any BrokerClock
    public let logger: Logger
    public let metrics: any BrokerMetricsSink
    public let throttle: LoginThrottle
    let refreshes = RefreshCoordinator()
    /// Identifies this process in refresh leases shared with other instances.
    public let instanceId = Secrets.randomToken(bytes: 9)
    private let current: Mutex<EngineState>
    /// Upstream tokens already opened from the vault, by ciphertext and owner. A refresh writes a
    /// new ciphertext, so a stale entry is never asked for again; a reload starts empty.
    let openedUpstream = BoundedCache<OpenedUpstreamKey, UpstreamToken>(capacity: 10_000)
    /// Access tokens whose signature, type and issuer checked out, by their exact text, with
    /// their claims: backends validate the same token many times, and the signature check and
    /// claim parsing were the largest share of a validate. Expiry and every storage check still
    /// run each time; new keys or configuration start it empty, so a removed key never verifies
    /// from memory.
    let verifiedAccessTokens = BoundedCache<String, AccessTokenClaims>(capacity: 10_000)
    /// At most one storage read of the signing keys every two seconds for tokens naming an unknown key.
    let keyReloads = KeyReloadGate(interval: 2)

    public init(issuer: String, state: EngineState, store: any BrokerStore,
                clock: any BrokerClock, logger: Logger, metrics: any BrokerMetricsSink = NoMetrics(),
                throttle: LoginThrottle = LoginThrottle()) {
        self.issuer = issuer
        self.store = store
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.throttle = throttle
        self.current = Mutex(state)
    }

    /// A consistent snapshot of the reloadable state for one request.
    public var state: EngineState { current.withLock { $0 } }

    /// The vault of the current configuration: the first key seals, all open.
    public var vault: Vault { current.withLock { $0.vault } }

    /// Swaps in a new configuration or key ring; requests in flight keep their snapshot.
    public func replaceState(_ state: EngineState) {
        current.withLock { $0 = state }
        openedUpstream.removeAll()
        verifiedAccessTokens.removeAll()
    }

    public func updateKeys(_ keys: SigningKeyRing) {
        current.withLock { $0.keys = keys }
        verifiedAccessTokens.removeAll()
    }

    /// The longest time a token signed now stays valid: how long a retired key stays published.
    public static func keyRetention(for config: BrokerConfig) -> TimeInterval {
        let ttls = (config.environments.flatMap(\.authServices) + config.organizations.flatMap(\.authServices)).map(\.tokenTtl)
        return TimeInterval((ttls.max() ?? AuthService.defaultTokenTtl) + 300)
    }
}
