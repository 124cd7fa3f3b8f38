import Foundation
import GRDB
import IdentityCore
@testable import SQLiteStore
import StoreContracts
import StoreTesting
import Testing

/// The SQLite backend counts throttle attempts in memory (`ThrottleCounters`) and keeps them in
/// the `throttle` table: written about a second after they change and when the store closes, read
/// back when it opens, bounded in memory as in the table. The login throttle's places held by
/// attempts in flight live in memory only. The rules themselves are the shared
/// store conformance suite's (`StoreConformance` in StoreTesting).
@Suite("SQLite: throttle counters in memory, kept in the table")
struct SQLiteThrottleCountersTests {
    static let now = StoreFixtures.now

    static func storedCounts(_ store: SQLiteStore) async throws -> [String: Int] {
        try await store.pool.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key_hash, count FROM throttle").map { ($0[0], $0[1]) })
        }
    }

    /// One failed attempt under `rule` at `date`.
    static func fail(_ store: SQLiteStore, _ rule: ThrottleRule, at date: Date = now) async throws {
        #expect(try await store.throttleReserve([rule], at: date) == .reserved)
        try await store.throttleFailed([rule], reservedAt: date, at: date)
    }

    @Test("a store opened again refuses the key its last run locked, and keeps a correct password's reset")
    func survivesReopening() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        let user = StoreFixtures.rule("reopened-user", limit: 2), other = StoreFixtures.rule("reset-user", limit: 2)
        let first = try SQLiteStore(path: path)
        for rule in [user, user, other, other] { try await Self.fail(first, rule) }
        #expect(try await first.throttleReserve([user], at: Self.now) != .reserved)
        // The spacing's one attempt is the right password.
        let later = Self.now.addingTimeInterval(61)
        #expect(try await first.throttleReserve([other], at: later) == .reserved)
        try await first.throttleSucceeded(ThrottleReset(reset: other.keyHash, release: nil, reservedAt: later))
        try await first.close()

        let second = try SQLiteStore(path: path)
        #expect(try await second.throttleReserve([user], at: Self.now) != .reserved)
        #expect(try await StoreFixtures.places(second, other, at: later) == 2)
        try await second.close()
    }

    @Test("failures reach the table about a second later, without closing; attempts that did not fail are never written")
    func writtenBehind() async throws {
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath())
        let user = StoreFixtures.rule("written-user", limit: 5), signedIn = StoreFixtures.rule("signed-in", limit: 5)
        try await Self.fail(store, user)
        try await Self.fail(store, user)
        for _ in 0..<3 {
            #expect(try await store.throttleReserve([signedIn], at: Self.now) == .reserved)
            try await store.throttleSucceeded(ThrottleReset(reset: signedIn.keyHash, release: nil, reservedAt: Self.now))
        }
        #expect(try await Self.storedCounts(store)[user.keyHash] == nil)
        let deadline = Date().addingTimeInterval(10)
        while try await Self.storedCounts(store)[user.keyHash] != 2 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await Self.storedCounts(store)[user.keyHash] == 2)
        #expect(try await Self.storedCounts(store)[signedIn.keyHash] == nil)
        #expect(store.throttle.count == 1, "a key with no failures and nothing in flight is forgotten")
        #expect(!store.throttle.flushing)
        try await store.close()
    }

    @Test("a flood of new keys stays within the cap and a quarter, and keeps the counter holding a guesser back")
    func bounded() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        let store = try SQLiteStore(path: path)
        let guesser = StoreFixtures.rule("guessed-user", limit: 5)
        for _ in 0..<5 { #expect(try await store.throttleAttempt(guesser, at: Self.now)) }
        try await store.capThrottle(maxRows: 8)
        for index in 0..<200 {
            let junk = StoreFixtures.rule("junk-\(index)", limit: 5)
            #expect(try await store.throttleAttempt(junk, at: Self.now.addingTimeInterval(Double(index))))
            #expect(store.throttle.count <= 10)
        }
        #expect(try await !store.throttleAttempt(guesser, at: Self.now.addingTimeInterval(1)))
        try await store.capThrottle(maxRows: 8)
        #expect(store.throttle.count == 8)
        try await store.close()
        let reopened = try SQLiteStore(path: path)
        let stored = try await Self.storedCounts(reopened)
        #expect(stored.count == 8 && stored[guesser.keyHash] == 5)
        try await reopened.close()
    }

    @Test("counters whose window and spacing are over are forgotten with the expired records")
    func purged() async throws {
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath())
        let user = StoreFixtures.rule("expiring-user", limit: 1)
        #expect(try await store.throttleAttempt(user, at: Self.now))
        #expect(try await !store.throttleAttempt(user, at: Self.now))
        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(299))
        #expect(store.throttle.count == 1)
        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(301))
        #expect(store.throttle.count == 0)
        try await store.close()
    }
}
