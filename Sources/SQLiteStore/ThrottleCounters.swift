import StoreContracts
import Synchronization

/// The throttle's counters of the SQLite backend (the login throttle and the rate limits), held in
/// memory and written to the `throttle` table behind the requests (``SQLiteStore/flushThrottle()``).
///
/// SQLite serves one broker process, so the process's memory is the one place every attempt
/// passes through. Counting in the table cost each sign-in a write transaction of its own before
/// the connector was called, about 15% of the sign-in's CPU. Here a decision is a dictionary
/// lookup under a lock; the table keeps the counters across restarts (loaded on open, written
/// about a second after they change and when the store closes). A crash can lose the last
/// second's failures: a guesser gains at most that second's attempts per crash.
///
/// The rules are those of ``ThrottleStore`` and of the PostgreSQL backend's statements: a rate
/// limit counts a key's requests while it has fewer than `limit` in its window, or its last one
/// is at least `spacing` old; the login throttle reserves a place per attempt and counts only the
/// failures (``reserve(_:at:)``, ``failed(_:reservedAt:at:)``, ``succeeded(_:)``). Each decision
/// and its bookkeeping are one step under the lock, so of two attempts at the limit exactly one
/// gets through. Reservations live only here: they end with their request, and a process that
/// stops takes its requests with it. The table is bounded: past `capacity` and a quarter, the
/// counters attempted longest ago go first, those that reached five last (``cap(maxRows:)``).
final class ThrottleCounters: Sendable {
    /// One key's counter; the columns of the `throttle` table (times in seconds since 1970), and
    /// the login attempts in flight (when each was reserved), which are not stored.
    struct Counter: Sendable, Equatable {
        var windowStart: Double
        var count: Int
        var lastAttempt: Double
        var expiresAt: Double
        var pending: [Double] = []
    }

    /// The keys changed since the last flush, with their counters now (nil: removed).
    typealias Changes = [(key: String, counter: Counter?)]

    struct State {
        var counters: [String: Counter] = [:]
        var changed: Set<String> = []
        var capacity: Int
        var flushScheduled = false
        var flushesRunning = 0
        var closed = false
    }

    let state: Mutex<State>

    init(capacity: Int = 100_000) {
        state = Mutex(State(capacity: capacity))
    }

    /// A rate limit's request: counted under each rule in order, stopping at the first that
    /// refuses (those before it stay counted). Returns whether all allowed, and whether a flush
    /// must be scheduled.
    func attempt(_ rules: [ThrottleRule], at now: Double) -> (allowed: Bool, scheduleFlush: Bool) {
        state.withLock { state in
            var allowed = true
            for rule in rules {
                let window = max(rule.window, rule.spacing)
                guard var counter = state.counters[rule.keyHash] else {
                    state.counters[rule.keyHash] = Counter(windowStart: now, count: 1, lastAttempt: now, expiresAt: now + window)
                    state.changed.insert(rule.keyHash)
                    Self.capIfFull(&state)
                    continue
                }
                let windowOver = counter.windowStart <= now - window
                guard windowOver || counter.count < rule.limit || counter.lastAttempt <= now - rule.spacing else {
                    allowed = false
                    break
                }
                counter.count = windowOver ? 1 : counter.count + 1
                if windowOver { counter.windowStart = now }
                counter.lastAttempt = now
                counter.expiresAt = max(counter.expiresAt, now + window)
                state.counters[rule.keyHash] = counter
                state.changed.insert(rule.keyHash)
            }
            return (allowed, Self.claimFlush(&state))
        }
    }

    /// Keeps at most `maxRows` counters (and at most that many and a quarter between calls):
    /// those attempted longest ago go first, counters at five attempts or more last, so a flood of
    /// junk keys cannot evict the counter that holds a guesser back. Returns whether to flush.
    func cap(maxRows: Int) -> Bool {
        state.withLock { state in
            state.capacity = max(0, maxRows)
            Self.cap(&state, to: state.capacity)
            return Self.claimFlush(&state)
        }
    }

    /// Forgets counters whose window and spacing ended before `now` (the table's rows go with
    /// the store's expiry sweep).
    func purge(before now: Double) {
        state.withLock { state in
            state.counters = state.counters.filter { $0.value.expiresAt >= now }
        }
    }

    /// The counters read from the table when the store opens, capped to `capacity`; unchanged.
    func load(_ rows: [(String, Counter)]) {
        state.withLock { state in
            for (key, counter) in rows { state.counters[key] = counter }
            Self.cap(&state, to: state.capacity)
        }
    }

    /// The changes to write, taken (the next change schedules another flush); nil once closed.
    /// Every taken batch must be ended with ``flushEnded(restoring:)``.
    func takeChanges(closing: Bool = false) -> Changes? {
        state.withLock { state in
            if state.closed && !closing { return nil }
            if closing { state.closed = true }
            state.flushScheduled = false
            state.flushesRunning += 1
            let changes = state.changed.map { (key: $0, counter: state.counters[$0]) }
            state.changed = []
            return changes
        }
    }

    /// A flush is over; when it failed, its keys are marked changed again for the next one.
    func flushEnded(restoring failed: Changes? = nil) {
        state.withLock { state in
            state.flushesRunning -= 1
            for change in failed ?? [] { state.changed.insert(change.key) }
        }
    }

    /// Whether a flush is writing now (``SQLiteStore/close()`` waits for it).
    var flushing: Bool { state.withLock { $0.flushesRunning > 0 } }

    /// How many counters are held (tests: the bound).
    var count: Int { state.withLock { $0.counters.count } }

    static func claimFlush(_ state: inout State) -> Bool {
        guard !state.changed.isEmpty, !state.flushScheduled, !state.closed else { return false }
        state.flushScheduled = true
        return true
    }

    static func capIfFull(_ state: inout State) {
        if state.counters.count > state.capacity + state.capacity / 4 { cap(&state, to: state.capacity) }
    }

    private static func cap(_ state: inout State, to maxRows: Int) {
        guard state.counters.count > maxRows else { return }
        let dropped = state.counters.sorted { left, right in
            let (leftHeld, rightHeld) = (left.value.count >= 5, right.value.count >= 5)
            if leftHeld != rightHeld { return !leftHeld }
            return left.value.lastUsed < right.value.lastUsed
        }.prefix(state.counters.count - maxRows)
        for (key, _) in dropped {
            state.counters[key] = nil
            state.changed.insert(key)
        }
    }
}
