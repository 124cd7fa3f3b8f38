import Dispatch
import Foundation
import Synchronization

/// Bounds what a power cut can take back: every commit's WAL frames reach the disk within
/// ``interval`` of the commit, on a thread of their own.
///
/// With `synchronous = NORMAL` SQLite syncs the WAL only when it checkpoints, and the broker
/// checkpoints at 4,000 pages (``WALCheckpoints``): on a quiet broker the last commits — a
/// revocation, a rotated refresh token — could wait hours for that, at the mercy of a power cut
/// or a host crash the whole time (a crash of the broker alone loses nothing). Here the first
/// commit after a sync arms a timer; when it fires, the WAL file is synced (`fdatasync` of the
/// `-wal` file, opened by path, which flushes the file whoever wrote it).
///
/// Why not a checkpoint: a passive checkpoint syncs the WAL only when it can copy frames back,
/// so a reader holding an old snapshot makes it return without syncing anything; and it runs on
/// the write connection, where short writes would queue behind its copying once a second. The
/// sync needs neither: frames are complete in the file before SQLite calls the WAL hook that
/// counts their commit, and SQLite's recovery keeps exactly the commits whose frames check out,
/// so a synced prefix of the WAL is a durable prefix of the commits.
final class WALSync: Sendable {
    /// At most how long a commit waits for its sync (it bounds what a power cut can take back).
    static let interval: DispatchTimeInterval = .seconds(1)

    private let walPath: String
    private let directoryPath: String
    /// `fdatasync`, or a stand-in that fails (tests of the failure path).
    private let syncFile: @Sendable (Int32) -> Int32
    /// Why the last attempt failed (`errno`), while it has not been followed by a success.
    private let lastFailure = Mutex<Int32?>(nil)
    private let queue = DispatchQueue(label: "idconnect.sqlite.wal-sync")
    private let armed = Atomic<Bool>(false)
    /// Commits on the write connection so far, and how many of them are on the disk. `synced`
    /// changes only on `queue`.
    private let commits = Atomic<Int>(0)
    private let synced = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    /// The WAL file last synced (device and inode): a new one's directory entry is synced too.
    private let lastFile = Mutex<FileIdentity?>(nil)

    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// For the database at `databasePath`; its WAL is `databasePath-wal`.
    init(databasePath: String, syncFile: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) }) {
        walPath = databasePath + "-wal"
        directoryPath = (databasePath as NSString).deletingLastPathComponent
        self.syncFile = syncFile
    }

    /// Why commits cannot be synced right now (the last attempt failed and none has succeeded
    /// since), or nil. The store's readiness check reports it (``SQLiteStore/ping()``).
    var failure: String? {
        lastFailure.withLock { $0 }.map { "the WAL file \(walPath) could not be synced to disk: \(String(cString: strerror($0)))" }
    }

    /// Syncs of the WAL file done so far (for tests and diagnostics).
    var count: Int { completed.load(ordering: .relaxed) }

    /// Some commit is not on the disk yet: a power cut now could take it back.
    var unsynced: Bool { synced.load(ordering: .sequentiallyConsistent) < commits.load(ordering: .sequentiallyConsistent) }

    /// Counts a commit (the WAL hook calls it after each) and arms the timer if it is not.
    func committed() {
        commits.add(1, ordering: .sequentiallyConsistent)
        guard !armed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        queue.asyncAfter(deadline: .now() + Self.interval) { self.timerFired() }
    }

    /// Syncs now what is committed, waiting for it off the caller's thread (the store's close).
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                _ = self.syncCommitted()
                done.resume()
            }
        }
    }

    /// Disarms before it looks, so a commit it does not see arms the next timer. A failed sync
    /// (an I/O error) is tried again an interval later, without waiting for another commit.
    private func timerFired() {
        armed.store(false, ordering: .sequentiallyConsistent)
        guard !syncCommitted(), !armed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        queue.asyncAfter(deadline: .now() + Self.interval) { self.timerFired() }
    }

    /// Syncs the WAL file if a commit counted so far is not on the disk; on `queue` only.
    /// Returns false when the sync failed.
    private func syncCommitted() -> Bool {
        let covered = commits.load(ordering: .sequentiallyConsistent)
        guard synced.load(ordering: .sequentiallyConsistent) < covered else { return true }
        let file = open(walPath, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            // SQLite deletes the WAL only after checkpointing all of it into the database file
            // and syncing that (the last connection closing): nothing is left to sync.
            guard errno == ENOENT else { return failed(errno) }
            return succeeded(covering: covered)
        }
        defer { close(file) }
        guard syncFile(file) == 0 else { return failed(errno) }
        guard syncDirectoryIfNew(file) else { return failed(errno) }
        completed.add(1, ordering: .relaxed)
        return succeeded(covering: covered)
    }

    private func succeeded(covering covered: Int) -> Bool {
        lastFailure.withLock { $0 = nil }
        synced.store(covered, ordering: .sequentiallyConsistent)
        return true
    }

    private func failed(_ error: Int32) -> Bool {
        lastFailure.withLock { $0 = error }
        return false
    }

    /// A WAL file this sync has not seen before may be newer than its directory entry on the
    /// disk; syncing the directory once makes the entry durable too.
    private func syncDirectoryIfNew(_ file: Int32) -> Bool {
        var status = stat()
        guard fstat(file, &status) == 0 else { return false }
        let identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        guard lastFile.withLock({ $0 }) != identity else { return true }
        let directory = open(directoryPath.isEmpty ? "." : directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return false }
        defer { close(directory) }
        guard fsync(directory) == 0 else { return false }
        lastFile.withLock { $0 = identity }
        return true
    }
}

/// The WAL file could not be synced to disk: commits are held only by the operating system's
/// cache until a sync succeeds (``SQLiteStore/ping()``).
struct WALNotSynced: Error, CustomStringConvertible {
    let description: String
}
