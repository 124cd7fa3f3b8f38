import Dispatch
import Foundation
import GRDBSQLite
import Synchronization

/// Bounds what a power cut can take back: a sync of every commit's WAL frames starts within
/// ``interval`` of the commit (or as soon as the sync before it returns), on a thread of its
/// own, and a failed or hanging sync is reported.
///
/// With `synchronous = NORMAL` SQLite syncs the WAL only when it checkpoints, and the broker
/// checkpoints at 4,000 pages (``WALCheckpoints``): on a quiet broker the last commits — a
/// revocation, a rotated refresh token — could wait hours for that, at the mercy of a power cut
/// or a host crash the whole time (a crash of the broker alone loses nothing). Here the first
/// commit after a sync arms a timer; when it fires, the WAL file is synced (`fdatasync` of a
/// descriptor of the `-wal` file kept for this, which flushes the file whoever wrote it).
///
/// Why not a checkpoint: a passive checkpoint syncs the WAL only when it can copy frames back,
/// so a reader holding an old snapshot makes it return without syncing anything; and it runs on
/// the write connection, where short writes would queue behind its copying once a second. The
/// sync needs neither: frames are complete in the file before SQLite calls the WAL hook that
/// counts their commit, and SQLite's recovery keeps exactly the commits whose frames check out,
/// so a synced prefix of the WAL is a durable prefix of the commits. Opening and closing the
/// `-wal` file here leaves SQLite's locks alone: closing a descriptor drops the process's POSIX
/// locks on that file, but SQLite locks the database and `-shm` files, never the WAL.
final class WALSync: Sendable {
    /// At most how long a commit waits for its sync to start (with the sync's own time, what a
    /// power cut can take back).
    static let interval: DispatchTimeInterval = .seconds(1)
    /// How long a sync may take before the store reports itself not ready (a disk that hangs).
    static let slowSync: Duration = .seconds(5)

    private let interval: DispatchTimeInterval
    private let slowSync: Duration
    /// `fdatasync`, or a stand-in that fails (tests of the failure path).
    private let syncFile: @Sendable (Int32) -> Int32
    private let queue = DispatchQueue(label: "idconnect.sqlite.wal-sync")
    private let armed = Atomic<Bool>(false)
    /// Commits on the write connection so far, and how many of them are on the disk. `synced`
    /// changes only on `queue`.
    private let commits = Atomic<Int>(0)
    private let synced = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    private let state = Mutex(State())

    private struct State {
        /// The WAL's name as SQLite resolved it (``locate(_:)``), and a descriptor of it kept
        /// open, so that it hears of every write-back error since its last sync (a descriptor
        /// opened later hears only of those nobody was told of).
        var walPath: String?
        var file: Int32 = -1
        var identity: FileIdentity?
        /// The first failure; it stays until the broker restarts (see ``failure``).
        var failure: String?
        /// When the sync under way started.
        var syncStarted: ContinuousClock.Instant?
        var closed = false
    }

    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// `interval` and `slowSync` are ``interval`` and ``slowSync`` but in tests.
    init(interval: DispatchTimeInterval = WALSync.interval, slowSync: Duration = WALSync.slowSync,
         syncFile: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) }) {
        self.interval = interval
        self.slowSync = slowSync
        self.syncFile = syncFile
    }

    /// Records the WAL's name from the write connection (SQLite's, with symbolic links resolved);
    /// call it from `prepareDatabase`.
    func locate(_ connection: OpaquePointer) {
        guard let database = sqlite3_db_filename(connection, "main"), let wal = sqlite3_filename_wal(database) else { return }
        let path = String(cString: wal)
        state.withLock { if $0.walPath == nil { $0.walPath = path } }
    }

    /// Why the last commits may not be on the disk, or nil. A failed sync is not forgiven when a
    /// later one succeeds: Linux reports a write-back error once and marks the pages clean, so
    /// the later success says nothing of the lost writes. The store's readiness check reports
    /// this (``SQLiteStore/ping()``) until the broker restarts; and a sync running for longer
    /// than ``slowSync``, while it runs.
    var failure: String? {
        state.withLock { state in
            if let failure = state.failure { return failure }
            guard let started = state.syncStarted, started.duration(to: .now) > slowSync else { return nil }
            return "the WAL file \(state.walPath ?? "?") has been syncing to disk for more than \(slowSync)"
        }
    }

    /// Syncs of the WAL file done so far (for tests and diagnostics).
    var count: Int { completed.load(ordering: .relaxed) }

    /// Some commit is not on the disk yet: a power cut now could take it back.
    var unsynced: Bool { synced.load(ordering: .sequentiallyConsistent) < commits.load(ordering: .sequentiallyConsistent) }

    /// Counts a commit (the WAL hook calls it after each) and arms the timer if it is not.
    func committed() {
        commits.add(1, ordering: .sequentiallyConsistent)
        guard !armed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        armTimer()
    }

    /// Records a failure found elsewhere (a checkpoint's I/O error: its sync of the WAL may
    /// have been the one told of a lost write).
    func record(failure: String) {
        state.withLock { if $0.failure == nil { $0.failure = failure } }
    }

    /// The store's close, after its connections closed: syncs what is committed, closes the
    /// descriptor and stops the timer. Returns ``failure`` (nil when all is on the disk), or
    /// says so when a sync under way has not returned within ``slowSync`` (the shutdown does not
    /// wait for a disk that hangs).
    func close() async -> String? {
        let answered = Atomic<Bool>(false)
        return await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            queue.async {
                _ = self.syncCommitted(closing: true)
                let failure = self.state.withLock { state -> String? in
                    state.closed = true
                    if state.file >= 0 { Glibc.close(state.file) }
                    state.file = -1
                    return state.failure
                }
                if !answered.exchange(true, ordering: .sequentiallyConsistent) { done.resume(returning: failure) }
            }
            let path = state.withLock { $0.walPath ?? "?" }
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(slowSync / .nanoseconds(1)))) {
                if !answered.exchange(true, ordering: .sequentiallyConsistent) {
                    done.resume(returning: "the WAL file \(path) was still syncing to disk when the store closed")
                }
            }
        }
    }

    deinit {
        let file = state.withLock { $0.file }
        if file >= 0 { Glibc.close(file) }
    }

    /// Held weakly: a store dropped without `close()` lets this go (and its descriptor).
    private func armTimer() {
        queue.asyncAfter(deadline: .now() + interval) { [weak self] in self?.timerFired() }
    }

    /// Disarms before it looks, so a commit it does not see arms the next timer. A failed sync
    /// is tried again an interval later, without waiting for another commit.
    private func timerFired() {
        armed.store(false, ordering: .sequentiallyConsistent)
        guard !state.withLock({ $0.closed }), !syncCommitted(),
              !armed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        armTimer()
    }

    /// Syncs the WAL file if a commit counted so far is not on the disk; on `queue` only.
    /// Returns false when the sync failed.
    private func syncCommitted(closing: Bool = false) -> Bool {
        let covered = commits.load(ordering: .sequentiallyConsistent)
        guard synced.load(ordering: .sequentiallyConsistent) < covered else { return true }
        state.withLock { $0.syncStarted = .now }
        defer { state.withLock { $0.syncStarted = nil } }
        let file: Int32
        if closing, let gone = keptFileIfWALGone() {
            // All connections are closed and the WAL is gone: SQLite deletes it only after
            // copying all of it into the database file and syncing that. A descriptor still
            // kept is synced all the same, for any write-back error it has to tell.
            guard let kept = gone else { return succeeded(covering: covered) }
            file = kept
        } else {
            guard let current = currentFile() else { return false }
            file = current
        }
        guard syncFile(file) == 0 else {
            let error = errno
            return failed("could not be synced to disk: \(Self.describe(error))")
        }
        completed.add(1, ordering: .relaxed)
        return succeeded(covering: covered)
    }

    /// At close: nil when the WAL file exists; else the kept descriptor, if any (`.some(nil)`
    /// when none is kept).
    private func keptFileIfWALGone() -> Int32?? {
        guard let path = state.withLock({ $0.walPath }), access(path, F_OK) != 0, errno == ENOENT else { return nil }
        let kept = state.withLock { $0.file }
        return .some(kept >= 0 ? kept : nil)
    }

    private func succeeded(covering covered: Int) -> Bool {
        // Not "syncing" any more before the commits count as synced (readiness reads both).
        state.withLock { $0.syncStarted = nil }
        synced.store(covered, ordering: .sequentiallyConsistent)
        return true
    }

    /// The kept descriptor of the WAL, opened (and its directory entry synced) when there is none
    /// or SQLite's WAL is now another file. While the store is open the WAL exists from the
    /// first commit on (SQLite deletes it only when the last connection closes), so a missing
    /// one is a failure.
    private func currentFile() -> Int32? {
        guard let path = state.withLock({ $0.walPath }) else { return fail("has no name (the write connection was not located)") }
        var status = stat()
        guard stat(path, &status) == 0 else {
            let error = errno
            return fail("is missing: \(Self.describe(error))")
        }
        let (kept, keptIdentity) = state.withLock { ($0.file, $0.identity) }
        if kept >= 0, keptIdentity == FileIdentity(status) { return kept }
        if kept >= 0 {
            // The file SQLite wrote before: sync what it holds, then let it go.
            let result = syncFile(kept)
            let error = errno
            Glibc.close(kept)
            state.withLock { $0.file = -1 }
            guard result == 0 else { return fail("could not be synced to disk: \(Self.describe(error))") }
        }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            let error = errno
            return fail("could not be opened: \(Self.describe(error))")
        }
        var opened = stat()
        guard fstat(file, &opened) == 0 else {
            let error = errno
            Glibc.close(file)
            return fail("could not be examined: \(Self.describe(error))")
        }
        // A new file's directory entry may not be on the disk yet.
        if let reason = Self.syncDirectory(of: path) {
            Glibc.close(file)
            return fail(reason)
        }
        state.withLock { state in
            state.file = file
            state.identity = FileIdentity(opened)
        }
        return file
    }

    /// Syncs the directory holding `path`; the reason when it could not.
    private static func syncDirectory(of path: String) -> String? {
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            let error = errno
            return "has a directory that could not be opened: \(describe(error))"
        }
        let result = fsync(directory)
        let error = errno
        Glibc.close(directory)
        return result == 0 ? nil : "has a directory that could not be synced: \(describe(error))"
    }

    private static func describe(_ error: Int32) -> String { String(cString: strerror(error)) }

    private func fail(_ reason: String) -> Int32? {
        _ = failed(reason)
        return nil
    }

    private func failed(_ reason: String) -> Bool {
        state.withLock { state in
            if state.failure == nil { state.failure = "the WAL file \(state.walPath ?? "?") \(reason)" }
        }
        return false
    }
}

/// The WAL file could not be synced to disk, or a sync hangs: the last commits may be lost on
/// a power cut (``SQLiteStore/ping()``, ``SQLiteStore/close()``).
struct WALNotSynced: Error, CustomStringConvertible {
    let description: String
}
