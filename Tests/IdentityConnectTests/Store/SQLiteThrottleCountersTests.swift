import Foundation
import GRDB
import IdentityCore
@testable import SQLiteStore
import StoreContracts
import Testing

/// The SQLite backend counts throttle attempts in memory (`ThrottleCounters`) and keeps them in
/// the `throttle` table: written about a second after they change and when the store closes, read
/// back when it opens, bounded in memory as in the table. The rules themselves are the shared
/// store suite's (ThrottleStoreTests, SignInThrottleResetStoreTests).
@Suite("SQLite: throttle counters in memory, kept in the table")
struct SQLiteThrottleCountersTests {
    static let now = StoreConformanceTests.now

    static func storedCounts(_ store: SQLiteStore) async throws -> [String: Int] {
        try await store.pool.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key_hash, count FROM throttle").map { ($0[0], $0[1]) })
        }
    }

    @Test("a store opened again refuses the key its last run exhausted, and keeps a correct password's reset")
    func survivesReopening() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        let user = StoreConformanceTests.rule("reopened-user", limit: 2), other = StoreConformanceTests.rule("reset-user", limit: 2)
        let first = try SQLiteStore(path: path)
        for rule in [user, user, other, other] { #expect(try await first.throttleAttempt(rule, at: Self.now)) }
        #expect(try await !first.throttleAttempt(user, at: Self.now))
        try await first.throttleSucceeded(reset: other.keyHash, release: nil)
        try await first.close()

        let second = try SQLiteStore(path: path)
        #expect(try await !second.throttleAttempt(user, at: Self.now))
        #expect(try await second.throttleAttempt(other, at: Self.now))
        #expect(try await second.throttleAttempt(other, at: Self.now))
        #expect(try await !second.throttleAttempt(other, at: Self.now))
        try await second.close()
    }

    @Test("changed counters reach the table about a second later, without closing")
    func writtenBehind() async throws {
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath())
        let user = StoreConformanceTests.rule("written-user", limit: 5)
        #expect(try await store.throttleAttempts([user, user], at: Self.now))
        #expect(try await Self.storedCounts(store)[user.keyHash] == nil)
        let deadline = Date().addingTimeInterval(10)
        while try await Self.storedCounts(store)[user.keyHash] != 2 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await Self.storedCounts(store)[user.keyHash] == 2)
        #expect(!store.throttle.flushing)
        try await store.close()
    }

    @Test("a flood of new keys stays within the cap and a quarter, and keeps the counter holding a guesser back")
    func bounded() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        let store = try SQLiteStore(path: path)
        let guesser = StoreConformanceTests.rule("guessed-user", limit: 5)
        for _ in 0..<5 { #expect(try await store.throttleAttempt(guesser, at: Self.now)) }
        try await store.capThrottle(maxRows: 8)
        for index in 0..<200 {
            let junk = StoreConformanceTests.rule("junk-\(index)", limit: 5)
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
        let user = StoreConformanceTests.rule("expiring-user", limit: 1)
        #expect(try await store.throttleAttempt(user, at: Self.now))
        #expect(try await !store.throttleAttempt(user, at: Self.now))
        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(299))
        #expect(store.throttle.count == 1)
        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(301))
        #expect(store.throttle.count == 0)
        try await store.close()
    }
}
