import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import Synchronization

/// What changes on reload or key rotation: the configuration, its clients and the signing keys.
///
/// A value, held through one reference: every request copies the live snapshot (client
/// authentication, token verification), and a copy of the four parts themselves would retain and
/// release every array and string of the configuration each time.
/// Setting a part makes a new reference, so a snapshot never changes under its holder.
public struct EngineState: Sendable {
    @usableFromInline
    final class Parts: Sendable {
        @usableFromInline let config: BrokerConfig
        @usableFromInline let directory: ClientDirectory
        @usableFromInline let keys: SigningKeyRing
        @usableFromInline let vault: Vault

        @usableFromInline
        init(config: BrokerConfig, directory: ClientDirectory, keys: SigningKeyRing, vault: Vault) {
            self.config = config
            self.directory = directory
            self.keys = keys
            self.vault = vault
        }
    }

    @usableFromInline var parts: Parts

    @inlinable public var config: BrokerConfig {
        get { parts.config }
        set { parts = Parts(config: newValue, directory: parts.directory, keys: parts.keys, vault: parts.vault) }
    }

    @inlinable public var directory: ClientDirectory {
        get { parts.directory }
        set { parts = Parts(config: parts.config, directory: newValue, keys: parts.keys, vault: parts.vault) }
    }

    @inlinable public var keys: SigningKeyRing {
        get { parts.keys }
        set { parts = Parts(config: parts.config, directory: parts.directory, keys: newValue, vault: parts.vault) }
    }

    /// Reloadable so `vault.keys` can gain a new key for `idconnect vault rotate` without a restart.
    @inlinable public var vault: Vault {
        get { parts.vault }
        set { parts = Parts(config: parts.config, directory: parts.directory, keys: parts.keys, vault: newValue) }
    }

    public init(config: BrokerConfig, directory: ClientDirectory, keys: SigningKeyRing, vault: Vault) {
        parts = Parts(config: config, directory: directory, keys: keys, vault: vault)
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
