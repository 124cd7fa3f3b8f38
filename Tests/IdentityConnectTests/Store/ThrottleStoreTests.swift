import Foundation
import IdentityCore
import StoreContracts
import Testing

/// Throttle counters in every backend (part of the shared store suite): rate limits count every
/// request up to their limit; the login throttle counts failures only, holds a place for each
/// attempt in flight, and decides concurrent attempts one at a time (docs/security.md, rule 6).
extension StoreConformanceTests {
    static func rule(_ key: String, limit: Int) -> ThrottleRule {
        ThrottleRule(keyHash: Secrets.hash(key), limit: limit, window: 300, spacing: 60)
    }

    /// How many more attempts `rule` lets be in flight at `date` (each one reserved, at most 20).
    static func places(_ store: any BrokerStore, _ rule: ThrottleRule, at date: Date = now) async throws -> Int {
        var count = 0
        while count < 20, try await store.throttleReserve([rule], at: date) == .reserved { count += 1 }
        return count
    }

    @Test("rate limit: a rule allows its limit, then one request per spacing", arguments: StoreBackend.allCases)
    func throttleRateLimit(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let rule = Self.rule("rate", limit: 2)
        #expect(try await store.throttleAttempt(rule, at: Self.now))
        #expect(try await store.throttleAttempt(rule, at: Self.now))
        #expect(try await !store.throttleAttempt(rule, at: Self.now))
        #expect(try await store.throttleAttempt(rule, at: Self.now.addingTimeInterval(61)))
        #expect(try await !store.throttleAttempt(rule, at: Self.now.addingTimeInterval(61)))
        try await store.close()
    }

    @Test("login throttle: attempts in flight hold places and successes count nothing; failures lock, then one at a time per spacing",
          arguments: StoreBackend.allCases)
    func throttleReservations(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let user = Self.rule("reserving-user", limit: 2)
        // Two in flight: the third waits (busy), and gets in as soon as one succeeds.
        #expect(try await store.throttleReserve([user], at: Self.now) == .reserved)
        #expect(try await store.throttleReserve([user], at: Self.now) == .reserved)
        #expect(try await store.throttleReserve([user], at: Self.now) == .busy(keyHash: user.keyHash))
        for _ in 0..<10 {
            try await store.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: Self.now))
            #expect(try await store.throttleReserve([user], at: Self.now) == .reserved)
        }
        try await store.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: Self.now))
        try await store.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: Self.now))
        // Two failures lock the key until 60 s after the last one.
        for second in [1.0, 2.0] {
            let at = Self.now.addingTimeInterval(second)
            #expect(try await store.throttleReserve([user], at: at) == .reserved)
            try await store.throttleFailed([user], reservedAt: at, at: at)
        }
        let locked = ThrottleDecision.locked(keyHash: user.keyHash, until: Self.now.addingTimeInterval(62))
        #expect(try await store.throttleReserve([user], at: Self.now.addingTimeInterval(3)) == locked)
        // Past the spacing one attempt goes ahead, and the next waits for its outcome.
        let later = Self.now.addingTimeInterval(62)
        #expect(try await store.throttleReserve([user], at: later) == .reserved)
        #expect(try await store.throttleReserve([user], at: later) == .busy(keyHash: user.keyHash))
        try await store.throttleFailed([user], reservedAt: later, at: later)
        #expect(try await store.throttleReserve([user], at: later) == .locked(keyHash: user.keyHash, until: later.addingTimeInterval(60)))
        // A success in the spacing's place clears the failures.
        let again = later.addingTimeInterval(60)
        #expect(try await store.throttleReserve([user], at: again) == .reserved)
        try await store.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: again))
        #expect(try await Self.places(store, user, at: again) == 2)
        try await store.close()
    }

    @Test("login throttle: rules in order, places before a refusal given back; an address keeps its failures when released",
          arguments: StoreBackend.allCases)
    func throttleRules(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let address = Self.rule("address", limit: 3), user = Self.rule("user", limit: 1)
        #expect(try await store.throttleReserve([address, user], at: Self.now) == .reserved)
        // The user has no place left: refused, and the address's place given back.
        #expect(try await store.throttleReserve([address, user], at: Self.now) == .busy(keyHash: user.keyHash))
        try await store.throttleFailed([address, user], reservedAt: Self.now, at: Self.now)
        #expect(try await store.throttleReserve([address, user], at: Self.now) != .reserved)
        // Failure 1 of 3 on the address: two places left there.
        #expect(try await Self.places(store, address) == 2)
        try await store.throttleSucceeded(ThrottleReset(reset: nil, release: address.keyHash, reservedAt: Self.now))
        try await store.throttleSucceeded(ThrottleReset(reset: nil, release: address.keyHash, reservedAt: Self.now))
        #expect(try await Self.places(store, address) == 2)
        #expect(try await store.throttleReserve([], at: Self.now) == .reserved)
        try await store.close()
    }

    @Test("login throttle: a place never settled is forgotten after its hold; settling names the attempt by its date",
          arguments: StoreBackend.allCases)
    func throttleHold(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let user = Self.rule("held-user", limit: 2)
        // An attempt whose instance stopped (never settled), then one settled 30 s later.
        #expect(try await store.throttleReserve([user], at: Self.now) == .reserved)
        let second = Self.now.addingTimeInterval(30)
        #expect(try await store.throttleReserve([user], at: second) == .reserved)
        try await store.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: second))
        #expect(try await Self.places(store, user, at: second.addingTimeInterval(1)) == 1)
        try await store.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: second.addingTimeInterval(1)))
        // Past the first one's hold (60 s), both places are free again.
        #expect(try await Self.places(store, user, at: Self.now.addingTimeInterval(61)) == 2)
        try await store.close()
    }

    @Test("login throttle: 20 concurrent two-rule attempts at a limit of 5 hold exactly 5 places; 5 failures lock the rest out",
          arguments: StoreBackend.allCases)
    func throttleConcurrent(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let address = Self.rule("busy-address", limit: 100), user = Self.rule("busy-user", limit: 5)
        let decisions = try await withThrowingTaskGroup(of: ThrottleDecision.self) { group in
            for _ in 0..<20 { group.addTask { try await store.throttleReserve([address, user], at: Self.now) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(decisions.filter { $0 == .reserved }.count == 5)
        #expect(decisions.filter { $0 == .busy(keyHash: user.keyHash) }.count == 15)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await store.throttleFailed([address, user], reservedAt: Self.now, at: Self.now) } }
            try await group.waitForAll()
        }
        #expect(try await store.throttleReserve([address, user], at: Self.now)
                == .locked(keyHash: user.keyHash, until: Self.now.addingTimeInterval(60)))
        // The address counted five failures and holds no place.
        #expect(try await Self.places(store, address) == 20)
        try await store.close()
    }
}
