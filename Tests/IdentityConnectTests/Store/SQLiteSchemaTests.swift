import Foundation
import GRDB
@testable import SQLiteStore
import StoreContracts
import StoreTesting
import Testing

/// The SQLite schema's indexes as the hot writes need them: a new token family writes no entry
/// in the previous-refresh-token index (only rotated families have one and are looked up by
/// it), the lookup still uses that index, and a database from before the change is migrated.
@Suite("SQLite schema: the previous-refresh-token index")
struct SQLiteSchemaTests {
    @Test("new families leave the index empty; rotated ones are in it, and the lookup uses it")
    func partialIndex() async throws {
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath())
        try await store.insertSession(StoreFixtures.session("s1"))
        try await store.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        try await store.insertFamily(StoreFixtures.family("f2", session: "s1", refresh: "r2"))
        #expect(try await Self.isPartial(store))
        #expect(try await Self.indexed(store) == 0)
        #expect(try await store.rotateRefresh(familyId: "f1", from: "r1", to: "r1b", expiresAt: StoreFixtures.now.addingTimeInterval(900),
                                              graceResponse: nil, at: StoreFixtures.now))
        #expect(try await Self.indexed(store) == 1)
        #expect(try await store.family(refreshHash: "r1")?.1 == .previous)
        let plan = try await store.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(SQLiteStore.familyByRefreshSQL)", arguments: ["r1"])
                .map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX token_families_previous") }, "\(plan)")
        try await store.close()
    }

    @Test("a database from before the partial index is migrated and still finds a rotated family by its previous token")
    func migratesOlderDatabase() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let older = try DatabaseQueue(path: path)
        try SQLiteStore.migrator.migrate(older, upTo: "v12-saml-lifecycle")
        try await older.write { db in
            try db.execute(sql: """
                INSERT INTO token_families (id, session_id, client_id, scope, created_at, refresh_hash, previous_refresh_hash, rotated_at)
                VALUES ('f1', 's1', 'kid', 'openid', 1000, 'new-hash', 'old-hash', 1000), ('f2', 's1', 'kid', 'openid', 1000, 'other', NULL, NULL)
                """)
        }
        try older.close()
        let store = try SQLiteStore(path: path)
        let definition = try await store.pool.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'token_families_previous'")
        }
        #expect(definition?.contains("WHERE previous_refresh_hash IS NOT NULL") == true)
        #expect(try await Self.isPartial(store))
        #expect(try await Self.indexed(store) == 1)
        #expect(try await store.family(refreshHash: "old-hash")?.0.id == "f1")
        #expect(try await store.family(refreshHash: "old-hash")?.1 == .previous)
        try await store.close()
    }

    /// SQLite's own word that the previous-refresh-token index is partial (`PRAGMA index_list`).
    static func isPartial(_ store: SQLiteStore) async throws -> Bool {
        try await store.pool.read { db in
            try Row.fetchAll(db, sql: "PRAGMA index_list('token_families')")
                .contains { ($0["name"] as String) == "token_families_previous" && ($0["partial"] as Int) == 1 }
        }
    }

    /// How many entries the previous-refresh-token index holds (those with a previous token).
    static func indexed(_ store: SQLiteStore) async throws -> Int {
        try await store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM token_families INDEXED BY token_families_previous WHERE previous_refresh_hash IS NOT NULL") ?? -1
        }
    }
}
