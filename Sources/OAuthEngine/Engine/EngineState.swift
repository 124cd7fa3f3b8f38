import Foundation
import IdentityConfig
import IdentityCore
import JOSE
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

/// The current ``EngineState``, swapped as a whole on reload; requests read one consistent
/// snapshot. Whoever memoizes something derived from the state registers to be told of swaps.
public final class LiveState: Sendable {
    private let current: Mutex<EngineState>
    private let listeners = Mutex<[@Sendable (_ keysOnly: Bool) -> Void]>([])

    public init(_ state: EngineState) { current = Mutex(state) }

    /// A consistent snapshot for one request.
    public var snapshot: EngineState { current.withLock { $0 } }

    public func replace(_ state: EngineState) {
        current.withLock { $0 = state }
        notify(keysOnly: false)
    }

    public func updateKeys(_ keys: SigningKeyRing) {
        current.withLock { $0.keys = keys }
        notify(keysOnly: true)
    }

    /// Calls `listener` after every swap (`keysOnly` when only the signing keys changed).
    func onChange(_ listener: @escaping @Sendable (_ keysOnly: Bool) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    private func notify(keysOnly: Bool) {
        for listener in listeners.withLock({ $0 }) { listener(keysOnly) }
    }
}
