import Foundation
import StoreContracts

/// The login throttle's reservations (``ThrottleStore``): an attempt reserves a place under each
/// key, and only a failure is counted. What the PostgreSQL backend decides in its statements,
/// decided here under the counters' lock.
extension ThrottleCounters {
    /// Reserves a place for an attempt under each rule in order; on the first rule that refuses,
    /// the places taken before it are given back (in the same step) and its decision returned.
    func reserve(_ rules: [ThrottleRule], at now: Double) -> ThrottleDecision {
        state.withLock { state in
            var taken: [String] = []
            for rule in rules {
                var counter = state.counters[rule.keyHash]
                    ?? Counter(windowStart: now, count: 0, lastAttempt: now, expiresAt: now + rule.keep)
                counter.pending.removeAll { $0 <= now - rule.hold }
                let decision = Self.decide(counter, rule, at: now)
                guard decision == .reserved else {
                    for key in taken { Self.release(key, stamp: now, in: &state) }
                    return decision
                }
                counter.pending.append(now)
                counter.expiresAt = max(counter.expiresAt, now + rule.keep)
                let isNew = state.counters[rule.keyHash] == nil
                state.counters[rule.keyHash] = counter
                if isNew { Self.capIfFull(&state) }
                taken.append(rule.keyHash)
            }
            return .reserved
        }
    }

    /// The attempt reserved at `stamp` failed: each rule's reservation becomes a failure counted
    /// at `now`. Returns whether to schedule a flush.
    func failed(_ rules: [ThrottleRule], reservedAt stamp: Double, at now: Double) -> Bool {
        state.withLock { state in
            for rule in rules {
                var counter = state.counters[rule.keyHash]
                    ?? Counter(windowStart: now, count: 0, lastAttempt: now, expiresAt: now + rule.keep)
                if let index = counter.pending.firstIndex(of: stamp) { counter.pending.remove(at: index) }
                let window = max(rule.window, rule.spacing)
                if counter.count == 0 || counter.windowStart <= now - window {
                    counter.count = 1
                    counter.windowStart = now
                } else {
                    counter.count += 1
                }
                counter.lastAttempt = now
                counter.expiresAt = max(counter.expiresAt, now + rule.keep)
                state.counters[rule.keyHash] = counter
                state.changed.insert(rule.keyHash)
            }
            Self.capIfFull(&state)
            return Self.claimFlush(&state)
        }
    }

    /// An attempt that was not a failure (``ThrottleReset``): `reset` starts from zero, and both
    /// keys give back the reservation made at `reservedAt`. Keys without a counter are left
    /// alone. Returns whether to schedule a flush.
    func succeeded(_ reset: ThrottleReset) -> Bool {
        state.withLock { state in
            let stamp = reset.reservedAt.sql
            if let key = reset.reset, var counter = state.counters[key], counter.count != 0 {
                counter.count = 0
                state.counters[key] = counter
                state.changed.insert(key)
            }
            for key in [reset.reset, reset.release].compactMap({ $0 }) { Self.release(key, stamp: stamp, in: &state) }
            return Self.claimFlush(&state)
        }
    }

    /// Whether `counter` allows one more attempt under `rule` now: failures in the window plus
    /// attempts in flight under the limit, or, once the failures reached it, one attempt at a
    /// time every `spacing` after the last failure.
    static func decide(_ counter: Counter, _ rule: ThrottleRule, at now: Double) -> ThrottleDecision {
        let window = max(rule.window, rule.spacing)
        let windowOver = counter.windowStart <= now - window
        let failures = windowOver ? 0 : counter.count
        if failures + counter.pending.count < rule.limit { return .reserved }
        if failures >= rule.limit && counter.lastAttempt > now - rule.spacing {
            let until = min(counter.lastAttempt + rule.spacing, counter.windowStart + window)
            return .locked(keyHash: rule.keyHash, until: Date(timeIntervalSince1970: until))
        }
        return counter.pending.isEmpty ? .reserved : .busy(keyHash: rule.keyHash)
    }

    /// Gives back the reservation made at `stamp` under `key`. A counter with no failures and
    /// nothing in flight is forgotten (its row, if it had one, goes with the next flush).
    private static func release(_ key: String, stamp: Double, in state: inout State) {
        guard var counter = state.counters[key] else { return }
        if let index = counter.pending.firstIndex(of: stamp) { counter.pending.remove(at: index) }
        state.counters[key] = counter.count == 0 && counter.pending.isEmpty ? nil : counter
    }
}

extension ThrottleCounters.Counter {
    /// When the key was last used: its last failure or its newest reservation.
    var lastUsed: Double { max(lastAttempt, pending.last ?? lastAttempt) }
}
