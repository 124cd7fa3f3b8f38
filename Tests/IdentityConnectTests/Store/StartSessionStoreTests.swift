import Foundation
import IdentityCore
import StoreContracts
import Testing

/// `startSession` (the password grant's one write) stores exactly what `insertSession` followed by
/// `insertFamily` stores, does the throttle's reset with it, and stores nothing when any part
/// fails — on every backend.
@Suite("Store: a session and its first family in one write")
struct StartSessionStoreTests {
    static let now = StoreConformanceTests.now

    /// A session whose absolute end (`maxExpiresAt`) falls between its own end and its family's
    /// refresh expiry, so the extension is visibly capped.
    static func session(_ id: String) -> LoginSession {
        var session = StoreConformanceTests.session(id, expires: 600)
        session.maxExpiresAt = now.addingTimeInterval(5000)
        return session
    }

    @Test("the same rows as two writes, the session extended for the refresh token", arguments: StoreBackend.allCases)
    func sameAsTwoWrites(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertSession(Self.session("two"))
        try await store.insertFamily(StoreConformanceTests.family("f-two", session: "two", refresh: "r-two"))
        try await store.startSession(Self.session("one"), family: StoreConformanceTests.family("f-one", session: "one", refresh: "r-one"),
                                     throttleReset: nil)

        let two = try must(await store.session(id: "two")), one = try must(await store.session(id: "one"))
        #expect(one.expiresAt == Self.now.addingTimeInterval(5000))
        #expect(one.lastUsedAt == Self.now)
        var renamed = one
        renamed.id = "two"
        renamed.subject = two.subject
        #expect(renamed == two)
        #expect(try await store.family(id: "f-one")?.sessionId == "one")
        let (found, match) = try must(await store.family(refreshHash: "r-one"))
        #expect(found.id == "f-one" && match == .current)

        // Without a refresh token the session is stored as it is.
        try await store.startSession(Self.session("online"), family: StoreConformanceTests.family("f-online", session: "online", refresh: nil),
                                     throttleReset: nil)
        #expect(try await store.session(id: "online") == Self.session("online"))
        #expect(try await store.family(id: "f-online") != nil)
        try await store.close()
    }

    @Test("clears the username's failures and gives both places back", arguments: StoreBackend.allCases)
    func resetRides(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let user = StoreConformanceTests.rule("start-user", limit: 2), address = StoreConformanceTests.rule("start-address", limit: 3)
        try await SignInThrottleResetStoreTests.exhaust(store, user: user, address: address)
        try await store.startSession(Self.session("s1"), family: StoreConformanceTests.family("f1", session: "s1", refresh: "r1"),
                                     throttleReset: SignInThrottleResetStoreTests.reset(user, address))
        try await SignInThrottleResetStoreTests.expectReset(store, user: user, address: address)
        try await store.close()
    }

    @Test("a family that cannot be stored takes the session and the reset with it", arguments: StoreBackend.allCases)
    func allOrNothing(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let user = StoreConformanceTests.rule("nothing-user", limit: 2), address = StoreConformanceTests.rule("nothing-address", limit: 3)
        try await SignInThrottleResetStoreTests.exhaust(store, user: user, address: address)
        try await store.startSession(Self.session("first"), family: StoreConformanceTests.family("taken", session: "first", refresh: "r1"),
                                     throttleReset: nil)
        await #expect(throws: (any Error).self) {
            try await store.startSession(Self.session("second"),
                                         family: StoreConformanceTests.family("taken", session: "second", refresh: "r2"),
                                         throttleReset: SignInThrottleResetStoreTests.reset(user, address))
        }
        #expect(try await store.session(id: "second") == nil)
        #expect(try await store.family(refreshHash: "r2")?.0.id == nil)
        try await SignInThrottleResetStoreTests.expectUnchanged(store, user: user, address: address)
        try await store.close()
    }
}
