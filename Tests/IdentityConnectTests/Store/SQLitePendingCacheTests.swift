import Foundation
import GRDB
import IdentityCore
@testable import SQLiteStore
import StoreContracts
import StoreTesting
import Testing

/// The SQLite backend keeps the pending authorizations it stored most recently in memory
/// (`PendingCache`) and answers reads from there: what it answers must always be what the table
/// holds — after an update, a consumption, a completion, a completion that failed — and the
/// cache stays bounded.
@Suite("SQLite: pending authorizations kept in memory")
struct SQLitePendingCacheTests {
    static func pending(_ attempts: Int = 0, expires: TimeInterval = 60) -> PendingAuthorization {
        var pending = StoreFixtures.pending()
        pending.failedAttempts = attempts
        pending.expiresAt = StoreFixtures.now.addingTimeInterval(expires)
        return pending
    }

    /// What the table holds for `idHash`, read past the cache.
    static func stored(_ store: SQLiteStore, _ idHash: String) async throws -> PendingAuthorization? {
        try await store.pool.read { db in
            try Data.fetchOne(db, sql: "SELECT data FROM pending_authorizations WHERE id_hash = ?", arguments: [idHash])
        }.map { try PendingAuthorization.fromStoredJSON($0) }
    }

    @Test("reads answer what the table holds after inserts, updates, consumption and completion")
    func sameAsTable() async throws {
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath())
        try await store.insertPending(Self.pending(), idHash: "p1")
        #expect(store.pendingCache.count == 1)
        #expect(try await store.pending(idHash: "p1") == Self.stored(store, "p1"))
        try await store.updatePending(Self.pending(2), idHash: "p1")
        #expect(try await store.pending(idHash: "p1")?.failedAttempts == 2)
        #expect(try await Self.stored(store, "p1")?.failedAttempts == 2)
        // An update of an id the table does not hold keeps nothing.
        try await store.updatePending(Self.pending(1), idHash: "absent")
        #expect(try await store.pending(idHash: "absent") == nil)
        #expect(try await store.consumePending(idHash: "p1"))
        #expect(try await store.pending(idHash: "p1") == nil)

        try await store.insertPending(Self.pending(), idHash: "p2")
        #expect(try await store.completeSignIn(session: StoreFixtures.session("s2"),
                                               code: StoreFixtures.code("c2", session: "s2"), consumingPending: "p2"))
        #expect(try await store.pending(idHash: "p2") == nil)
        #expect(store.pendingCache.count == 0)
        try await store.close()
    }

    @Test("a completion that fails leaves the pending authorization readable, as the table still holds it")
    func failedCompletion() async throws {
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath())
        try await store.insertPending(Self.pending(3), idHash: "p1")
        try await store.insertCode(StoreFixtures.code("taken", session: "other"))
        await #expect(throws: (any Error).self) {
            try await store.completeSignIn(session: StoreFixtures.session("s1"),
                                           code: StoreFixtures.code("taken", session: "s1"), consumingPending: "p1")
        }
        #expect(try await store.pending(idHash: "p1")?.failedAttempts == 3)
        #expect(try await Self.stored(store, "p1")?.failedAttempts == 3)
        try await store.close()
    }

    @Test("at most its capacity is kept, the oldest forgotten first and still read from the table; expired ones are purged")
    func bounded() async throws {
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath())
        let total = PendingCache.capacity + 10
        for index in 0..<total { try await store.insertPending(Self.pending(expires: index < 5 ? 10 : 600), idHash: "p\(index)") }
        #expect(store.pendingCache.count == PendingCache.capacity)
        #expect(store.pendingCache.pending("p0") == nil && store.pendingCache.pending("p\(total - 1)") != nil)
        #expect(try await store.pending(idHash: "p0") != nil)
        _ = try await store.purgeExpired(before: StoreFixtures.now.addingTimeInterval(60))
        #expect(store.pendingCache.count == PendingCache.capacity)
        try await store.insertPending(Self.pending(expires: 10), idHash: "short")
        _ = try await store.purgeExpired(before: StoreFixtures.now.addingTimeInterval(60))
        #expect(store.pendingCache.pending("short") == nil && store.pendingCache.count == PendingCache.capacity - 1)
        try await store.close()
    }
}
