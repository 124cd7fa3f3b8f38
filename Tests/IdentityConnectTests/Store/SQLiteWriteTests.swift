import Foundation
import GRDB
import IdentityCore
@testable import SQLiteStore
import StoreContracts
import Synchronization
import Testing

/// Short SQLite writes run on the caller's thread; checkpoints run off the commits, on GRDB's
/// queue; every commit reaches the disk within a second, on a thread of its own; a write lock
/// held by another process is waited for off the caller's thread. Reads of write-hot rows
/// (`writerRead`) see what is committed, and nothing another process has not.
@Suite("SQLite writes on the caller's thread")
struct SQLiteWriteTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("idc-writes-\(UUID().uuidString)/s.sqlite").path
    }

    @Test("concurrent short writes all land, mixed with long ones")
    func concurrentWrites() async throws {
        let store = try SQLiteStore(path: Self.temporaryPath())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<400 {
                group.addTask {
                    if index % 50 == 0 { _ = try await store.purgeExpired(before: StoreConformanceTests.now) }
                    try await store.insertSession(StoreConformanceTests.session("s\(index)"))
                }
            }
            try await group.waitForAll()
        }
        let count = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions") }
        #expect(count == 400)
        // The purges (and any checkpoint the inserts set off) are counted out when they finish.
        let deadline = Date().addingTimeInterval(20)
        while !store.longWrites.none && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.longWrites.none)
        try await store.close()
    }

    @Test("a WAL past the threshold, and not before, is checkpointed off the committing write")
    func checkpointsRun() async throws {
        let store = try SQLiteStore(path: Self.temporaryPath())
        let before = store.checkpoints.count
        // A 64 KB value spills into 15 overflow pages of 4 KiB; with its leaf and index pages an
        // insert adds 17–20 frames to the WAL.
        let blob = Data(repeating: 7, count: 64_000)
        let threshold = Int(WALCheckpoints.thresholdPages)
        let halfway = threshold / 40
        for index in 0..<halfway {
            try await store.insertOneTimeGrant(hash: "h\(index)", sealed: blob, expiresAt: StoreConformanceTests.now.addingTimeInterval(600))
        }
        // At most half the threshold so far: nothing scheduled, nothing run.
        #expect(!store.checkpoints.pending)
        #expect(store.checkpoints.count == before)
        for index in halfway..<(threshold / 15 + 50) {
            try await store.insertOneTimeGrant(hash: "h\(index)", sealed: blob, expiresAt: StoreConformanceTests.now.addingTimeInterval(600))
        }
        let deadline = Date().addingTimeInterval(20)
        while store.checkpoints.count == before && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(store.checkpoints.count > before)
        // SQLite's own automatic checkpoint is replaced on the write connection (it reports 0
        // once another WAL hook is installed): no commit checkpoints in place.
        let automatic = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(automatic == 0)
        try await store.close()
    }

    @Test("a commit far under the checkpoint threshold reaches the disk within seconds, a reader's old snapshot notwithstanding; an idle store syncs nothing")
    func quietCommitsAreSynced() async throws {
        let path = Self.temporaryPath()
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
        try await store.insertSession(StoreConformanceTests.session("quiet"))
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
        let store = try SQLiteStore(path: Self.temporaryPath(), walSync: WALSync(interval: .seconds(600)))
        try await store.insertSession(StoreConformanceTests.session("last"))
        #expect(store.walSync.unsynced)
        #expect(store.walSync.count == 0)
        try await store.close()
        #expect(!store.walSync.unsynced)
        #expect(store.walSync.count == 1)
    }

    @Test("the WAL synced is the one SQLite writes, beside the database a symbolic link names")
    func symbolicLinkPath() async throws {
        let real = Self.temporaryPath()
        let link = Self.temporaryPath()
        try await SQLiteStore(path: real).close()
        try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let store = try SQLiteStore(path: link, walSync: WALSync(interval: .seconds(600)))
        try await store.insertSession(StoreConformanceTests.session("linked"))
        try await store.close()
        #expect(!store.walSync.unsynced)
        #expect(store.walSync.count == 1)
        #expect(store.walSync.failure == nil)
    }

    @Test("a WAL that SQLite deleted when its last connection closed counts as synced at close")
    func walDeletedOnClose() async throws {
        let path = Self.temporaryPath()
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
        let store = try SQLiteStore(path: Self.temporaryPath(), walSync: WALSync(syncFile: { file in
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
        let disk = FailingDisk(failing: false)
        let released = DispatchSemaphore(value: 0)
        let store = try SQLiteStore(path: Self.temporaryPath(), walSync: WALSync(interval: .milliseconds(10), slowSync: .milliseconds(200), syncFile: { file in
            // Hangs (until the test lets it go) once the disk is made slow.
            if disk.failing.load(ordering: .relaxed) { _ = released.wait(timeout: .now() + 20) }
            return fdatasync(file)
        }))
        try await Self.waitUntilSynced(store, count: 1)
        disk.failing.store(true, ordering: .relaxed)
        try await store.insertSession(StoreConformanceTests.session("slow"))
        let deadline = Date().addingTimeInterval(20)
        while store.walSync.failure == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(store.walSync.failure?.contains("has been syncing to disk for more than") == true)
        await #expect(throws: WALNotSynced.self) { try await store.ping() }
        disk.failing.store(false, ordering: .relaxed)
        released.signal()
        try await Self.waitUntilSynced(store, count: 2)
        #expect(store.walSync.failure == nil)
        try await store.ping()
        try await store.close()
    }

    @Test("closing waits for a sync that hangs no longer than the slow-sync limit, and says so")
    func closeDoesNotWaitForAHangingSync() async throws {
        let disk = FailingDisk(failing: false)
        let released = DispatchSemaphore(value: 0)
        let store = try SQLiteStore(path: Self.temporaryPath(), walSync: WALSync(interval: .milliseconds(10), slowSync: .milliseconds(300), syncFile: { file in
            if disk.failing.load(ordering: .relaxed) { _ = released.wait(timeout: .now() + 20) }
            return fdatasync(file)
        }))
        try await Self.waitUntilSynced(store, count: 1)
        disk.failing.store(true, ordering: .relaxed)
        try await store.insertSession(StoreConformanceTests.session("hanging"))
        let deadline = Date().addingTimeInterval(20)
        while store.walSync.failure == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let closing = Date()
        do {
            try await store.close()
            Issue.record("the close should report the sync that hangs")
        } catch let error as WALNotSynced {
            #expect(error.description.contains("was still syncing to disk when the store closed"))
        }
        #expect(Date().timeIntervalSince(closing) < 15)
        disk.failing.store(false, ordering: .relaxed)
        released.signal()
    }

    final class FailingDisk: Sendable {
        let failing: Atomic<Bool>
        init(failing: Bool = true) { self.failing = Atomic(failing) }
    }

    /// Waits (at most 20 s) until every commit so far is synced and at least `count` syncs ran.
    static func waitUntilSynced(_ store: SQLiteStore, count: Int) async throws {
        let deadline = Date().addingTimeInterval(20)
        while (store.walSync.unsynced || store.walSync.count < count) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("after close, a write fails and a late checkpoint does nothing; neither reaches SQLite with no connection")
    func afterClose() async throws {
        let store = try SQLiteStore(path: Self.temporaryPath())
        try await store.insertSession(StoreConformanceTests.session("before"))
        try await store.close()
        await #expect(throws: (any Error).self) {
            try await store.insertSession(StoreConformanceTests.session("after"))
        }
        // A read of a write-hot row (on the writer connection) fails the same way.
        await #expect(throws: (any Error).self) {
            _ = try await store.session(id: "before")
        }
        let before = store.checkpoints.count
        await store.checkpoints.run()
        #expect(store.checkpoints.count == before)
    }

    @Test("a write lock held by another connection is waited for, not failed")
    func waitsForAnotherProcess() async throws {
        let path = Self.temporaryPath()
        let store = try SQLiteStore(path: path)
        let other = try DatabaseQueue(path: path)
        let locked = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                Thread.sleep(forTimeInterval: 0.4)
                try db.execute(sql: "COMMIT")
            }
        }
        holder.start()
        #expect(locked.wait(timeout: .now() + 10) == .success)
        // Here the write finds the lock taken (it does not wait on the caller's thread) and runs
        // again on GRDB's queue, which waits for the other connection's commit.
        try await store.insertSession(StoreConformanceTests.session("while-locked"))
        #expect(try await store.session(id: "while-locked") != nil)
        try other.close()
        try await store.close()
    }

    @Test("reads of write-hot rows see the latest commit, not another connection's open transaction")
    func writerReads() async throws {
        let path = Self.temporaryPath()
        let store = try SQLiteStore(path: path)
        try await store.insertSession(StoreConformanceTests.session("committed"))
        let other = try DatabaseQueue(path: path)
        let inserted = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "UPDATE sessions SET user_id = 'changed' WHERE id = 'committed'")
                inserted.signal()
                _ = release.wait(timeout: .now() + 10)
                try db.execute(sql: "COMMIT")
            }
        }
        holder.start()
        #expect(inserted.wait(timeout: .now() + 10) == .success)
        // The other connection holds the write lock with its change uncommitted.
        #expect(try await store.session(id: "committed")?.userId == "alice")
        release.signal()
        let deadline = Date().addingTimeInterval(10)
        while try await store.session(id: "committed")?.userId != "changed" && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await store.session(id: "committed")?.userId == "changed")
        try other.close()
        try await store.close()
    }
}
