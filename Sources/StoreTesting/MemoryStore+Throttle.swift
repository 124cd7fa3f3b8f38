import Foundation
import StoreContracts

/// The throttle's rows (``ThrottleCounter``), each decision and its bookkeeping one step under the
/// store's lock, as the SQL backends decide them on the locked row.
extension MemoryStore: ThrottleStore {
    public func throttleAttempt(_ rule: ThrottleRule, at date: Date) async throws -> Bool {
        try transaction { tables in
            guard var counter = tables.throttle[rule.keyHash] else {
                var first = ThrottleCounter(at: date, keptFor: rule.span)
                first.count = 1
                tables.throttle[rule.keyHash] = first
                return true
            }
            guard counter.countRequest(rule, at: date) else { return false }
            tables.throttle[rule.keyHash] = counter
            return true
        }
    }

    /// Rule by rule; on a refusal the places taken under the rules before it are given back.
    public func throttleReserve(_ rules: [ThrottleRule], at date: Date) async throws -> ThrottleDecision {
        try transaction { tables in
            for (index, rule) in rules.enumerated() {
                var counter = tables.throttle[rule.keyHash] ?? ThrottleCounter(at: date, keptFor: rule.keep)
                let decision = counter.reserve(rule, at: date)
                guard decision == .reserved else {
                    for taken in rules[..<index] { tables.releaseThrottle(taken.keyHash, reservedAt: date) }
                    return decision
                }
                tables.throttle[rule.keyHash] = counter
            }
            return .reserved
        }
    }

    public func throttleFailed(_ rules: [ThrottleRule], reservedAt: Date, at date: Date) async throws {
        try transaction { tables in
            for rule in rules {
                var counter = tables.throttle[rule.keyHash] ?? ThrottleCounter(at: date, keptFor: rule.keep)
                counter.countFailure(rule, reservedAt: reservedAt, at: date)
                tables.throttle[rule.keyHash] = counter
            }
        }
    }

    public func throttleSucceeded(_ reset: ThrottleReset) async throws {
        try transaction { $0.applyThrottleReset(reset) }
    }

    /// Drops the rows beyond `maxRows`: first those used longest ago, rows at five or more last.
    /// Only when called, as PostgreSQL does (SQLite also keeps the counters it holds in memory
    /// within a quarter over the last cap between calls: a bound on its process's memory).
    public func capThrottle(maxRows: Int) async throws {
        try transaction { tables in
            let surplus = tables.throttle.count - max(0, maxRows)
            guard surplus > 0 else { return }
            let firstToGo = tables.throttle.sorted { left, right in
                let (leftHolds, rightHolds) = (left.value.count >= 5, right.value.count >= 5)
                return leftHolds == rightHolds ? left.value.lastUsed < right.value.lastUsed : rightHolds
            }
            for (key, _) in firstToGo.prefix(surplus) { tables.throttle[key] = nil }
        }
    }
}

extension MemoryTables {
    /// A login attempt that was not a failure (``ThrottleReset``): the `reset` key's failures
    /// cleared, and the reservation made at `reservedAt` given back under both keys.
    mutating func applyThrottleReset(_ reset: ThrottleReset) {
        if let key = reset.reset { throttle[key]?.count = 0 }
        for key in [reset.reset, reset.release].compactMap({ $0 }) { releaseThrottle(key, reservedAt: reset.reservedAt) }
    }

    /// Gives back one reservation under `key`; a row left with no failures and nothing in flight goes.
    mutating func releaseThrottle(_ key: String, reservedAt stamp: Date) {
        guard var counter = throttle[key] else { return }
        counter.release(reservedAt: stamp)
        throttle[key] = counter.isIdle ? nil : counter
    }
}
