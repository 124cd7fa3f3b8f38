import Synchronization

/// A small thread-safe memo with a hard entry limit, for results that are pure functions of
/// their key (a verified JWS, an opened vault ciphertext) and are asked for again and again.
///
/// When full it forgets everything and starts over: simpler than LRU bookkeeping on the hot
/// path, and a refill costs only the work the cache saves.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Key: Value]>([:])
    public let capacity: Int

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public func value(for key: Key) -> Value? { entries.withLock { $0[key] } }

    public func store(_ value: Value, for key: Key) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
    }

    public func removeAll() { entries.withLock { $0.removeAll() } }

    public var count: Int { entries.withLock { $0.count } }
}
