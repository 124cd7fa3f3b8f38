import Synchronization
import StoreContracts

/// Access contexts read recently, for validation (docs/protocol.md, "GET /oauth/validate"). Backends validate the same token many times a second; with PostgreSQL
/// each read is a round trip. An entry is used for at most ``maximumAge`` and only while no write of
/// this process that can end or change an access context happened since it was read
/// (`AccessTokenStore.accessContextChanges`): a revocation here is seen at once, one on another
/// instance within ``maximumAge``. Callers use an entry only when every check on it passes and read
/// the store again otherwise, so a stale entry can only ever be less permissive than one read again,
/// never more — apart from a revocation on another instance, for at most ``maximumAge``.
final class AccessContextCache: Sendable {
    /// How long another instance's revocation can go unseen here; the contract is "within 1 s".
    static let maximumAge: Duration = .milliseconds(500)

    private struct Key: Hashable {
        let familyId: String
        let jti: String
    }

    private struct Entry {
        let context: AccessContext
        let changes: UInt64
        let readAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let capacity: Int
    private let maximumAge: Duration

    init(capacity: Int = 10_000, maximumAge: Duration = AccessContextCache.maximumAge) {
        self.capacity = max(1, capacity)
        self.maximumAge = maximumAge
    }

    /// The context read for (familyId, jti) less than ``maximumAge`` ago, if no relevant write of
    /// this process happened since (`changes` is the store's count now).
    func context(familyId: String, jti: String, changes: UInt64) -> AccessContext? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[Key(familyId: familyId, jti: jti)] else { return nil }
            guard entry.changes == changes, now - entry.readAt < maximumAge else {
                entries[Key(familyId: familyId, jti: jti)] = nil
                return nil
            }
            return entry.context
        }
    }

    /// Forgets every entry: a new configuration (a vault key removed after `vault rotate`) must not
    /// meet a session read, with its sealed upstream token, before the change.
    func removeAll() {
        entries.withLock { $0.removeAll(keepingCapacity: true) }
    }

    /// Keeps a context read after the store's count was `changes` (take the count before reading).
    func store(_ context: AccessContext, familyId: String, jti: String, changes: UInt64, readAt: ContinuousClock.Instant) {
        entries.withLock { entries in
            // When full, forget everything: simpler than LRU bookkeeping, and a refill costs only reads.
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[Key(familyId: familyId, jti: jti)] = Entry(context: context, changes: changes, readAt: readAt)
        }
    }
}
