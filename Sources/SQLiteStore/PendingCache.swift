import StoreContracts
import Synchronization

/// The pending authorizations this process stored most recently, as stored: a sign-in reads its
/// pending authorization back moments after the authorization request stored it, and reading
/// the row and decoding its JSON was about 4% of a sign-in's CPU.
///
/// It holds what the `pending_authorizations` table holds for these ids, because every change
/// of them goes through the store, inside the write that changes the row (SQLite's write lock
/// orders the changes), and a write that fails leaves its id forgotten (``SQLiteStore/pendingWrite(_:_:)``).
/// One SQLite file serves one broker process, so no other process changes them behind its back. A miss reads the table. At most
/// ``capacity`` are kept, the oldest forgotten first; expired ones are forgotten with the
/// table's (the engine refuses an expired one either way).
final class PendingCache: Sendable {
    static let capacity = 4_096

    private struct State {
        var entries: [String: PendingAuthorization] = [:]
        /// The ids in the order they were first kept; a slot's id is forgotten when it is reused.
        var ring = [String?](repeating: nil, count: PendingCache.capacity)
        var next = 0
    }

    private let state = Mutex(State())

    /// The pending authorization stored under `idHash`, when kept.
    func pending(_ idHash: String) -> PendingAuthorization? {
        state.withLock { $0.entries[idHash] }
    }

    /// Keeps `pending` as stored under `idHash` (inside the write that stores it).
    func keep(_ pending: PendingAuthorization, _ idHash: String) {
        state.withLock { state in
            if state.entries.updateValue(pending, forKey: idHash) != nil { return }
            if let oldest = state.ring[state.next] { state.entries[oldest] = nil }
            state.ring[state.next] = idHash
            state.next = (state.next + 1) % Self.capacity
        }
    }

    /// Forgets `idHash` (a write deletes its row, or failed after the cache was told of it).
    func forget(_ idHash: String) {
        state.withLock { _ = $0.entries.removeValue(forKey: idHash) }
    }

    /// Forgets those that expired before `date` (seconds since 1970).
    func purge(before date: Double) {
        state.withLock { state in
            state.entries = state.entries.filter { $0.value.expiresAt.timeIntervalSince1970 >= date }
        }
    }

    /// How many are kept (tests).
    var count: Int { state.withLock { $0.entries.count } }
}
