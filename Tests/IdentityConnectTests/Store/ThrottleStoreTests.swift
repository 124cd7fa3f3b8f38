import Foundation
import IdentityCore
import StoreContracts
import Testing

/// Login-throttle counters in every backend (part of the shared store suite): a rule counts up to
/// its limit, several rules are checked in order and stop at the first refusal, and concurrent
/// attempts at the limit are counted exactly once each.
extension StoreConformanceTests {
    static func rule(_ key: String, limit: Int) -> ThrottleRule {
        ThrottleRule(keyHash: Secrets.hash(key), limit: limit, window: 300, spacing: 60)
    }

    @Test("throttle: a rule allows its limit; rules in order stop at the first refusal, those before it counted",
          arguments: StoreBackend.allCases)
    func throttleRules(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let address = Self.rule("address", limit: 3), user = Self.rule("user", limit: 2)
        #expect(try await store.throttleAttempts([address, user], at: Self.now))
        #expect(try await store.throttleAttempts([address, user], at: Self.now))
        // The user is at its limit: refused, but the address (checked first) counted its third attempt.
        #expect(try await !store.throttleAttempts([address, user], at: Self.now))
        #expect(try await !store.throttleAttempt(address, at: Self.now))
        // A refusal by the first rule leaves the second untouched.
        let other = Self.rule("other-user", limit: 1)
        #expect(try await !store.throttleAttempts([address, other], at: Self.now))
        #expect(try await store.throttleAttempt(other, at: Self.now))
        // A success clears the user and gives the address one attempt back.
        try await store.throttleSucceeded(reset: user.keyHash, release: address.keyHash)
        #expect(try await store.throttleAttempts([address, user], at: Self.now))
        // Past the spacing, one more attempt is let through even at the limit.
        #expect(try await store.throttleAttempt(address, at: Self.now.addingTimeInterval(61)))
        #expect(try await store.throttleAttempts([], at: Self.now))
    }

    @Test("throttle: 20 concurrent two-rule attempts at a limit of 5 let exactly 5 through", arguments: StoreBackend.allCases)
    func throttleConcurrent(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let address = Self.rule("busy-address", limit: 100), user = Self.rule("busy-user", limit: 5)
        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 { group.addTask { try await store.throttleAttempts([address, user], at: Self.now) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(allowed == 5)
    }
}
