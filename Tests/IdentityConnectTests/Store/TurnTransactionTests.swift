import Foundation
import GRDB
@testable import SQLiteStore
import Synchronization
import Testing

/// The writes of one turn on SQLite's writer connection share a transaction and its commit: one
/// commit for all, a write that fails undoes only its own rows, a commit that fails keeps none
/// and tells every caller, and a write after SQLite rolled the transaction back does not slip
/// into a transaction of its own.
@Suite("SQLite: a turn's writes share one transaction", .timeLimit(.minutes(3)))
struct TurnTransactionTests {
    struct Refused: Error {}

    /// Counts the writer connection's commits.
    final class Commits: TransactionObserver, Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .acquiring) }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.add(1, ordering: .acquiringAndReleasing) }
        func databaseDidRollback(_ db: Database) {}
    }

    /// A store with a `probe` table, an `orphan` table whose rows need a `parent` row by the
    /// commit, and a `doom` table whose inserts roll the whole transaction back.
    static func store(path: String = SQLiteWriteTests.temporaryPath()) async throws -> SQLiteStore {
        let store = try SQLiteStore(path: path)
        try await store.writeOffLoop { db in
            try db.execute(sql: """
                CREATE TABLE probe (name TEXT PRIMARY KEY);
                CREATE TABLE parent (id TEXT PRIMARY KEY);
                CREATE TABLE orphan (id TEXT PRIMARY KEY, parent TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                CREATE TABLE doom (id TEXT);
                CREATE TRIGGER doom_rolls_back BEFORE INSERT ON doom BEGIN SELECT RAISE(ROLLBACK, 'doomed'); END;
                """)
        }
        return store
    }

    /// Starts a short write of `name` into `probe` (then `after`) and returns once it is queued.
    static func queueWrite(_ store: SQLiteStore, _ name: String,
                           after: @escaping @Sendable (Database) throws -> Void = { _ in }) async throws -> Task<Void, any Error> {
        let before = store.writerTurns.waiting
        let task = Task {
            try await store.write { db in
                try db.execute(sql: "INSERT INTO probe (name) VALUES (?)", arguments: [name])
                try after(db)
            }
        }
        while store.writerTurns.waiting == before { try await Task.sleep(for: .milliseconds(2)) }
        return task
    }

    static func probeRows(_ store: SQLiteStore) async throws -> [String] {
        try await store.pointRead { db in try String.fetchAll(db, sql: "SELECT name FROM probe ORDER BY name") }
    }

    static func holderWrites(_ name: String) -> @Sendable (TurnTransaction) throws -> Void {
        { turn in try turn.write { db in try db.execute(sql: "INSERT INTO probe (name) VALUES (?)", arguments: [name]) } }
    }

    /// None of the turn's rows were kept, the transaction is over and the turn free: the next
    /// write lands alone. Closes the store.
    static func expectNothingKeptAndTurnFree(_ store: SQLiteStore, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await probeRows(store) == [], sourceLocation: sourceLocation)
        try await store.write { db in try db.execute(sql: "INSERT INTO probe (name) VALUES ('later')") }
        #expect(try await probeRows(store) == ["later"], sourceLocation: sourceLocation)
        try await store.close()
    }

    @Test("the writes queued behind a holder commit with its own, once; one that fails undoes only its rows")
    func oneCommitPerTurn() async throws {
        let store = try await Self.store()
        let commits = Commits()
        try await store.pool.writeWithoutTransaction { db in db.add(transactionObserver: commits, extent: .observerLifetime) }
        let holder = try await WriterTurnsTests.BlockedHolder(store.writerTurns, work: Self.holderWrites("holder"))
        let first = try await Self.queueWrite(store, "a")
        let refused = try await Self.queueWrite(store, "b") { _ in throw Refused() }
        let third = try await Self.queueWrite(store, "c")
        try await holder.finish()
        try await first.value
        await #expect(throws: Refused.self) { try await refused.value }
        try await third.value
        #expect(try await Self.probeRows(store) == ["a", "c", "holder"])
        #expect(commits.value == 1)
        try await store.close()
    }

    @Test("a commit that fails keeps none of the turn's writes and fails every one of them")
    func aFailedCommitKeepsNothing() async throws {
        let store = try await Self.store()
        // Its own job then throws (`finish` checks that error stands); its write goes with the turn's.
        let holder = try await WriterTurnsTests.BlockedHolder(store.writerTurns, failing: true, work: Self.holderWrites("holder"))
        let first = try await Self.queueWrite(store, "a")
        // Fine on its own, but breaks a deferred foreign key: the commit fails.
        let breaking = try await Self.queueWrite(store, "b") { db in
            try db.execute(sql: "INSERT INTO orphan (id, parent) VALUES ('o', 'missing')")
        }
        try await holder.finish()
        await #expect(throws: DatabaseError.self) { try await first.value }
        await #expect(throws: DatabaseError.self) { try await breaking.value }
        try await Self.expectNothingKeptAndTurnFree(store)
    }

    @Test("after SQLite rolls the turn's transaction back, later writes of the turn fail instead of committing alone")
    func aRolledBackTurnKeepsNothing() async throws {
        let store = try await Self.store()
        let holder = try await WriterTurnsTests.BlockedHolder(store.writerTurns, failing: true, work: Self.holderWrites("holder"))
        let first = try await Self.queueWrite(store, "a")
        let dooming = try await Self.queueWrite(store, "b") { db in try db.execute(sql: "INSERT INTO doom (id) VALUES ('x')") }
        let after = try await Self.queueWrite(store, "c")
        try await holder.finish()
        await #expect(throws: TurnTransaction.RolledBack.self) { try await first.value }
        await #expect(throws: DatabaseError.self) { try await dooming.value }
        await #expect(throws: TurnTransaction.RolledBack.self) { try await after.value }
        try await Self.expectNothingKeptAndTurnFree(store)
    }

    @Test("writes of a turn that find another connection holding the write lock each land once, after it lets go")
    func writesWaitForAnotherConnection() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        let store = try await Self.store(path: path)
        let other = try DatabaseQueue(path: path)
        let locked = DispatchSemaphore(value: 0), unlock = DispatchSemaphore(value: 0)
        Thread {
            try? other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                _ = unlock.wait(timeout: .now() + 30)
                try db.execute(sql: "COMMIT")
            }
        }.start()
        #expect(locked.wait(timeout: .now() + 10) == .success)
        // The holder only reads, so its turn begins no transaction.
        let holder = try await WriterTurnsTests.BlockedHolder(store.writerTurns, work: { turn in
            _ = try turn.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM probe") }
        })
        let first = try await Self.queueWrite(store, "a")
        let second = try await Self.queueWrite(store, "b")
        // Both find the lock taken in the holder's turn and go to GRDB's queue, which waits.
        try await holder.finish()
        unlock.signal()
        try await first.value
        try await second.value
        #expect(try await Self.probeRows(store) == ["a", "b"])
        try other.close()
        try await store.close()
    }
}
