import Foundation
import IdentityCore
import StoreContracts
import Testing

/// A correct password's throttle reset rides in the sign-in's completing write
/// (`completeSignIn(…, throttleReset:)`): the username's failures cleared and the attempt's places
/// given back with it, even when the sign-in was already completed (the password was right either
/// way), and rolled back with a completion that fails — on every backend.
@Suite("Store: the throttle reset in the completing write")
struct SignInThrottleResetStoreTests {
    static let now = StoreConformanceTests.now

    /// One failed attempt under `address` (limit 3) and `user` (limit 2), then one that holds its
    /// places (the correct password, reserved at `now`): the user has no place left.
    static func exhaust(_ store: any BrokerStore, user: ThrottleRule, address: ThrottleRule) async throws {
        let earlier = now.addingTimeInterval(-1)
        #expect(try await store.throttleReserve([address, user], at: earlier) == .reserved)
        try await store.throttleFailed([address, user], reservedAt: earlier, at: earlier)
        #expect(try await store.throttleReserve([address, user], at: now) == .reserved)
        #expect(try await store.throttleReserve([user], at: now) == .busy(keyHash: user.keyHash))
    }

    /// The correct password's reset of `exhaust`'s second attempt.
    static func reset(_ user: ThrottleRule, _ address: ThrottleRule) -> ThrottleReset {
        ThrottleReset(reset: user.keyHash, release: address.keyHash, reservedAt: now)
    }

    /// After the reset: the user's failure cleared and place given back (both places free); the
    /// address's place given back, its failure kept (two of three places free).
    static func expectReset(_ store: any BrokerStore, user: ThrottleRule, address: ThrottleRule) async throws {
        #expect(try await StoreConformanceTests.places(store, user) == 2)
        #expect(try await StoreConformanceTests.places(store, address) == 2)
    }

    /// Without the reset: the user still busy, the address with one failure and one place held.
    static func expectUnchanged(_ store: any BrokerStore, user: ThrottleRule, address: ThrottleRule) async throws {
        #expect(try await StoreConformanceTests.places(store, user) == 0)
        #expect(try await StoreConformanceTests.places(store, address) == 1)
    }

    @Test("clears the username's failures and gives both places back, with the completion and without it",
          arguments: StoreBackend.allCases)
    func resetRides(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let user = StoreConformanceTests.rule("reset-user", limit: 2), address = StoreConformanceTests.rule("reset-address", limit: 3)
        try await Self.exhaust(store, user: user, address: address)
        try await store.insertPending(SignInCompletionStoreTests.pending(), idHash: "p1")
        let reset = Self.reset(user, address)
        #expect(try await store.completeSignIn(session: StoreConformanceTests.session("s1"),
                                               code: SignInCompletionStoreTests.code("c1", session: "s1"),
                                               consumingPending: "p1", throttleReset: reset))
        #expect(try await store.session(id: "s1") != nil)
        try await Self.expectReset(store, user: user, address: address)

        // The pending authorization is gone (another request completed it): nothing is stored,
        // but the reset is done all the same.
        let other = StoreConformanceTests.rule("reset-user-2", limit: 2), otherAddress = StoreConformanceTests.rule("reset-address-2", limit: 3)
        try await Self.exhaust(store, user: other, address: otherAddress)
        #expect(try await !store.completeSignIn(session: StoreConformanceTests.session("s2"),
                                                code: SignInCompletionStoreTests.code("c2", session: "s2"),
                                                consumingPending: "p1", throttleReset: Self.reset(other, otherAddress)))
        #expect(try await store.session(id: "s2") == nil)
        try await Self.expectReset(store, user: other, address: otherAddress)
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
                                           throttleReset: Self.reset(user, address))
        }
        // Rolled back with the rest: the caller settles the reset in a write of its own.
        try await Self.expectUnchanged(store, user: user, address: address)
        #expect(try await store.pending(idHash: "p1") != nil)
        try await store.close()
    }
}
