import Synchronization

/// A process-wide count of writes of one kind, read without a lock (see
/// `AccessTokenStore.accessContextChanges`). A store bumps it after the write finished, and a
/// reader takes the count before it reads, so anything read before a write carries an older count.
public final class ChangeCounter: Sendable {
    private let count = Atomic<UInt64>(0)

    public init() {}

    public var value: UInt64 { count.load(ordering: .acquiring) }

    /// Counts one write; call it once the write returned (or failed: a failed write may still have
    /// changed something).
    public func bump() { count.add(1, ordering: .releasing) }
}
