import Foundation
import IdentityCore
import StoreContracts
import Testing

/// A correct password's throttle reset rides in the sign-in's completing write
/// (`completeSignIn(…, throttleReset:)`): applied with it, applied even when the sign-in was
/// already completed (the password was right either way), and rolled back with a completion that
/// fails — on every backend.
@Suite("Store: the throttle reset in the completing write")
struct SignInThrottleResetStoreTests {
    static let now = StoreConformanceTests.now

    /// Counts `user` (limit 2) and `address` (limit 3) up to their limits: the next attempt of
    /// each is refused.
    static func exhaust(_ store: any BrokerStore, user: ThrottleRule, address: ThrottleRule) async throws {
        #expect(try await store.throttleAttempts([address, user], at: now))
        #expect(try await store.throttleAttempts([address, user], at: now))
        #expect(try await store.throttleAttempt(address, at: now))
        #expect(try await !store.throttleAttempt(user, at: now))
        #expect(try await !store.throttleAttempt(address, at: now))
    }

    @Test("clears the username and gives the address one attempt back, with the completion and without it",
          arguments: StoreBackend.allCases)
    func resetRides(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let user = StoreConformanceTests.rule("reset-user", limit: 2), address = StoreConformanceTests.rule("reset-address", limit: 3)
        try await Self.exhaust(store, user: user, address: address)
        try await store.insertPending(SignInCompletionStoreTests.pending(), idHash: "p1")
        let reset = ThrottleReset(reset: user.keyHash, release: address.keyHash)
        #expect(try await store.completeSignIn(session: StoreConformanceTests.session("s1"),
                                               code: SignInCompletionStoreTests.code("c1", session: "s1"),
                                               consumingPending: "p1", throttleReset: reset))
        #expect(try await store.session(id: "s1") != nil)
        // The username starts again from zero; the address got exactly one attempt back.
        #expect(try await store.throttleAttempt(user, at: Self.now))
        #expect(try await store.throttleAttempt(user, at: Self.now))
        #expect(try await !store.throttleAttempt(user, at: Self.now))
        #expect(try await store.throttleAttempt(address, at: Self.now))
        #expect(try await !store.throttleAttempt(address, at: Self.now))

        // The pending authorization is gone (another request completed it): nothing is stored,
        // but the reset is done all the same.
        #expect(try await !store.completeSignIn(session: StoreConformanceTests.session("s2"),
                                                code: SignInCompletionStoreTests.code("c2", session: "s2"),
                                                consumingPending: "p1", throttleReset: reset))
        #expect(try await store.session(id: "s2") == nil)
        #expect(try await store.throttleAttempt(user, at: Self.now))
        #expect(try await store.throttleAttempt(address, at: Self.now))
        try await store.close()
    }

    @Test("a completion that fails leaves the counters as they were", arguments: StoreBackend.allCases)
    func failedCompletion(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let user = StoreConformanceTests.rule("failed-user", limit: 2), address = StoreConformanceTests.rule("failed-address", limit: 3)
        try await Self.exhaust(store, user: user, address: address)
        try await store.insertPending(SignInCompletionStoreTests.pending(), idHash: "p1")
        try await store.insertCode(SignInCompletionStoreTests.code("taken", session: "other"))
        await #expect(throws: (any Error).self) {
            try await store.completeSignIn(session: StoreConformanceTests.session("s1"),
                                           code: SignInCompletionStoreTests.code("taken", session: "s1"), consumingPending: "p1",
                                           throttleReset: ThrottleReset(reset: user.keyHash, release: address.keyHash))
        }
        // Rolled back with the rest: the caller settles the reset in a write of its own.
        #expect(try await !store.throttleAttempt(user, at: Self.now))
        #expect(try await !store.throttleAttempt(address, at: Self.now))
        #expect(try await store.pending(idHash: "p1") != nil)
        try await store.close()
    }
}
