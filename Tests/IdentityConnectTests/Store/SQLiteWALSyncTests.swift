import Foundation
import GRDB
@testable import SQLiteStore
import StoreContracts
import StoreTesting
import Synchronization
import Testing

/// Every commit of the SQLite store reaches the disk within seconds (``WALSync``), whatever
/// readers hold, at close too; a sync that fails or hangs is reported, not forgiven.
@Suite("SQLite WAL syncs")
struct SQLiteWALSyncTests {
    @Test("a commit far under the checkpoint threshold reaches the disk within seconds, a reader's old snapshot notwithstanding; an idle store syncs nothing")
    func quietCommitsAreSynced() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        // Three seconds, not one: room for a loaded machine between the commit and the check
        // that it is not synced yet.
        let store = try SQLiteStore(path: path, walSync: WALSync(interval: .seconds(3)))
        // The migrations' commits are synced first.
        try await Self.waitUntilSynced(store, count: 1)
        // Another connection holds a read transaction on the snapshot before the commit (a
        // passive checkpoint returns without syncing the WAL when readers keep it from copying).
        let other = try DatabaseQueue(path: path)
        let reading = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let reader = Thread {
            try? other.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions")
                reading.signal()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        reader.start()
        #expect(reading.wait(timeout: .now() + 10) == .success)
        let before = store.walSync.count
        let committed = Date()
        try await store.insertSession(StoreFixtures.session("quiet"))
        // A few pages in the WAL, nowhere near the threshold: nothing but the timer syncs them.
        #expect(store.walSync.unsynced)
        try await Self.waitUntilSynced(store, count: before + 1)
        #expect(!store.walSync.unsynced)
        #expect(Date().timeIntervalSince(committed) < 10)
        #expect(store.walSync.count == before + 1)
        #expect(store.checkpoints.count == 0)
        #expect(store.walSync.failure == nil)
        release.signal()
        // With nothing committed, no timer is armed and nothing is synced.
        try await Task.sleep(for: .milliseconds(7_000))
        #expect(store.walSync.count == before + 1)
        try other.close()
        try await store.close()
    }

    @Test("closing syncs the last commits at once")
    func closeSyncs() async throws {
        // A timer that would not fire during the test: only the close can sync.
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath(), walSync: WALSync(interval: .seconds(600)))
        try await store.insertSession(StoreFixtures.session("last"))
        #expect(store.walSync.unsynced)
        #expect(store.walSync.count == 0)
        try await store.close()
        #expect(!store.walSync.unsynced)
        #expect(store.walSync.count == 1)
    }

    @Test("the WAL synced is the one SQLite writes, beside the database a symbolic link names")
    func symbolicLinkPath() async throws {
        let real = SQLiteWriteTests.temporaryPath()
        let link = SQLiteWriteTests.temporaryPath()
        try await SQLiteStore(path: real).close()
        try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let store = try SQLiteStore(path: link, walSync: WALSync(interval: .seconds(600)))
        try await store.insertSession(StoreFixtures.session("linked"))
        try await store.close()
        #expect(!store.walSync.unsynced)
        #expect(store.walSync.count == 1)
        #expect(store.walSync.failure == nil)
    }

    @Test("a WAL that SQLite deleted when its last connection closed counts as synced at close")
    func walDeletedOnClose() async throws {
        let path = SQLiteWriteTests.temporaryPath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let sync = WALSync(interval: .seconds(600))
        // One connection, the last to close: SQLite checkpoints the WAL into the database file,
        // syncs that and deletes the WAL.
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            if let connection = db.sqliteConnection { sync.locate(connection) }
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        sync.committed()
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try queue.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(sync.unsynced)
        let failure = await sync.close()
        #expect(failure == nil)
        #expect(!sync.unsynced)
    }

    @Test("a WAL sync that fails is tried again every second with no further commit, and leaves the store not ready until it restarts")
    func failedSyncIsRetried() async throws {
        let disk = FailingDisk()
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath(), walSync: WALSync(syncFile: { file in
            guard disk.failing.load(ordering: .relaxed) else { return fdatasync(file) }
            errno = EIO
            return -1
        }))
        // The migrations' commits: their sync fails.
        let deadline = Date().addingTimeInterval(20)
        while store.walSync.failure == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(store.walSync.failure?.contains("could not be synced to disk: Input/output error") == true)
        #expect(store.walSync.unsynced)
        await #expect(throws: WALNotSynced.self) { try await store.ping() }
        // The disk answers again: the next attempt, a second later, syncs the commits. A write
        // the kernel failed to write back is not written by a later sync, so the store stays
        // not ready, and its close says so.
        disk.failing.store(false, ordering: .relaxed)
        try await Self.waitUntilSynced(store, count: 1)
        #expect(!store.walSync.unsynced)
        await #expect(throws: WALNotSynced.self) { try await store.ping() }
        await #expect(throws: WALNotSynced.self) { try await store.close() }
    }

    @Test("a sync that hangs leaves the store not ready while it lasts")
    func slowSyncIsReported() async throws {
        let (store, disk) = try await Self.storeWithHangingSync(slowSync: .milliseconds(200))
        #expect(store.walSync.failure?.contains("has been syncing to disk for more than") == true)
        await #expect(throws: WALNotSynced.self) { try await store.ping() }
        disk.release()
        try await Self.waitUntilSynced(store, count: 2)
        #expect(store.walSync.failure == nil)
        try await store.ping()
        try await store.close()
    }

    @Test("closing waits for a sync that hangs no longer than the slow-sync limit, and says so")
    func closeDoesNotWaitForAHangingSync() async throws {
        let (store, disk) = try await Self.storeWithHangingSync(slowSync: .milliseconds(300))
        let closing = Date()
        do {
            try await store.close()
            Issue.record("the close should report the sync that hangs")
        } catch let error as WALNotSynced {
            #expect(error.description.contains("was still syncing to disk when the store closed"))
        }
        #expect(Date().timeIntervalSince(closing) < 15)
        disk.release()
    }

    /// A disk whose syncs hang, once made slow, until the test lets them go. The hang's own
    /// limit is far beyond any test's wait: a hang that ended by itself before the test looked
    /// (a loaded machine can pause a test for many seconds) would make the store ready again.
    final class HangingDisk: Sendable {
        let slow = Atomic<Bool>(false)
        let released = DispatchSemaphore(value: 0)

        func sync(_ file: Int32) -> Int32 {
            if slow.load(ordering: .relaxed) { _ = released.wait(timeout: .now() + 300) }
            return fdatasync(file)
        }

        func release() {
            slow.store(false, ordering: .relaxed)
            released.signal()
        }
    }

    /// A store whose first syncs pass, then one that hangs, reported as slow past `slowSync`.
    static func storeWithHangingSync(slowSync: Duration) async throws -> (SQLiteStore, HangingDisk) {
        let disk = HangingDisk()
        let store = try SQLiteStore(path: SQLiteWriteTests.temporaryPath(),
                                    walSync: WALSync(interval: .milliseconds(10), slowSync: slowSync, syncFile: { disk.sync($0) }))
        try await waitUntilSynced(store, count: 1)
        disk.slow.store(true, ordering: .relaxed)
        try await store.insertSession(StoreFixtures.session("hanging"))
        // Generous: on a loaded two-core machine the sync thread can start many seconds late.
        let deadline = Date().addingTimeInterval(60)
        while store.walSync.failure == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try #require(store.walSync.failure != nil, "the hanging sync never started")
        return (store, disk)
    }

    final class FailingDisk: Sendable {
        let failing = Atomic<Bool>(true)
    }

    /// Waits (at most 60 s) until every commit so far is synced and at least `count` syncs ran.
    static func waitUntilSynced(_ store: SQLiteStore, count: Int) async throws {
        let deadline = Date().addingTimeInterval(60)
        while (store.walSync.unsynced || store.walSync.count < count) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
