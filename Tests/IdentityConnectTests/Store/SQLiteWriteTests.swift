import EventLoopAffinity
import Foundation
import GRDB
import IdentityCore
import NIOCore
import NIOPosix
@testable import SQLiteStore
import StoreContracts
import StoreTesting
import Synchronization
import Testing

/// Short SQLite writes run on the caller's thread; checkpoints run off the commits, on GRDB's
/// queue (their syncs to disk: `SQLiteWALSyncTests`); a write lock
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
                    if index % 50 == 0 { _ = try await store.purgeExpired(before: StoreFixtures.now) }
                    try await store.insertSession(StoreFixtures.session("s\(index)"))
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

    @Test("close, called on an event loop while a long write runs, waits for it off the loop: the loop keeps serving")
    func closeWaitsOffTheLoop() async throws {
        let store = try SQLiteStore(path: Self.temporaryPath())
        let blocked = try await BlockedLongWrite(store)
        let closing = Task { try await withTaskExecutorPreference(EventLoopTaskExecutor(blocked.loop)) { try await store.close() } }
        #expect(try await blocked.loopServedInTime())
        try await blocked.releaseWrite()
        try await closing.value
        try await blocked.shutdown()
    }

    @Test("a short write and a writer read made on an event loop while a long write runs wait for it off the loop: the loop keeps serving")
    func shortWritesWaitOffTheLoop() async throws {
        let store = try SQLiteStore(path: Self.temporaryPath())
        let blocked = try await BlockedLongWrite(store)
        let short = Task {
            try await withTaskExecutorPreference(EventLoopTaskExecutor(blocked.loop)) {
                try await store.insertSession(StoreFixtures.session("during"))
                return try await store.writerRead { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions") }
            }
        }
        #expect(try await blocked.loopServedInTime())
        try await blocked.releaseWrite()
        #expect(try await short.value == 1)
        try await store.close()
        try await blocked.shutdown()
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
            try await store.insertOneTimeGrant(hash: "h\(index)", sealed: blob, expiresAt: StoreFixtures.now.addingTimeInterval(600))
        }
        // At most half the threshold so far: nothing scheduled, nothing run.
        #expect(!store.checkpoints.pending)
        #expect(store.checkpoints.count == before)
        for index in halfway..<(threshold / 15 + 50) {
            try await store.insertOneTimeGrant(hash: "h\(index)", sealed: blob, expiresAt: StoreFixtures.now.addingTimeInterval(600))
        }
        // Generous: the checkpoint runs on a pool that other suites keep busy in a full run.
        let deadline = Date().addingTimeInterval(90)
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

    @Test("after close, a write fails and a late checkpoint does nothing; neither reaches SQLite with no connection")
    func afterClose() async throws {
        let store = try SQLiteStore(path: Self.temporaryPath())
        try await store.insertSession(StoreFixtures.session("before"))
        try await store.close()
        await #expect(throws: (any Error).self) {
            try await store.insertSession(StoreFixtures.session("after"))
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
        try await store.insertSession(StoreFixtures.session("while-locked"))
        #expect(try await store.session(id: "while-locked") != nil)
        try other.close()
        try await store.close()
    }

    @Test("reads of write-hot rows see the latest commit, not another connection's open transaction")
    func writerReads() async throws {
        let path = Self.temporaryPath()
        let store = try SQLiteStore(path: path)
        try await store.insertSession(StoreFixtures.session("committed"))
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

/// A long write held open on GRDB's queue, and a one-thread event loop: a test hands the loop
/// something that must not wait for the long write, then asks whether the loop still serves.
private struct BlockedLongWrite: Sendable {
    let loop: any EventLoop
    private let group: MultiThreadedEventLoopGroup
    private let release = DispatchSemaphore(value: 0)
    private let writing: Task<Void, any Error>

    /// Starts the long write and returns once it runs.
    init(_ store: SQLiteStore) async throws {
        let inWrite = Atomic<Bool>(false), release = self.release
        writing = Task { try await store.writeOffLoop { _ in inWrite.store(true, ordering: .relaxed); _ = release.wait(timeout: .now() + 30) } }
        while !inWrite.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
    }

    /// Whether the loop runs a job before the long write ends. Work that blocked the loop behind
    /// the long write would hold this job until then; the write ends when the test calls
    /// ``releaseWrite()`` after this answer, or after ten seconds (then the job comes too late).
    /// The work under test reaches GRDB's queue within microseconds, well inside the 300 ms
    /// waited first.
    func loopServedInTime() async throws -> Bool {
        let tooLate = Atomic<Bool>(false), release = self.release
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            tooLate.store(true, ordering: .relaxed)
            release.signal()
        }
        try await Task.sleep(for: .milliseconds(300))
        return try await loop.submit { !tooLate.load(ordering: .relaxed) }.get()
    }

    /// Lets the long write end and waits for it.
    func releaseWrite() async throws {
        release.signal()
        try await writing.value
    }

    /// Shuts the loop down. Call it once the work handed to the loop has finished: the shutdown
    /// does not wait for it.
    func shutdown() async throws {
        try await group.shutdownGracefully()
    }
}
