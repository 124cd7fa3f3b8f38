import GRDB
import GRDBSQLite
import Synchronization

/// Moves SQLite's WAL checkpoints out of the commits that cross the threshold and onto GRDB's
/// writer queue.
///
/// SQLite's automatic checkpoint runs inside the commit that finds the WAL at 1,000 pages or
/// more: copying them back into the database file and syncing it takes milliseconds, and since
/// short writes run on the caller's thread (``SQLiteStore/write(_:)``) that caller is an event
/// loop. The WAL hook installed here replaces the automatic checkpoint on the write connection:
/// at ``thresholdPages`` it schedules a passive checkpoint on GRDB's queue, counted as a long
/// write (``LongWrites``), so writers meanwhile wait for it suspended instead of blocking. The
/// hook also tells ``WALSync`` of each commit, which bounds how long one waits for the disk.
final class WALCheckpoints: Sendable {
    /// The WAL size, in pages, at which a checkpoint is scheduled: four times SQLite's default.
    ///
    /// A checkpoint copies each page the WAL holds once, however often it was rewritten since
    /// the last one; hot pages (index interiors, the newest leaves of the expiry indexes) are
    /// rewritten by nearly every transaction. Measured per request (docs/benchmarks-history.md, the
    /// fourteenth stop, `scripts/costs.py`): at 4,000 pages the broker's threads off the event
    /// loops — the checkpoints, nearly all of it — spend half the CPU per code exchange and per
    /// refresh they spent at 1,000, and each writes a tenth fewer bytes. The WAL file grows
    /// further before it is reused from its start (about 18 MB under the benchmark; SQLite does
    /// not truncate it). What a power cut can take back is bounded by ``WALSync``, not by this.
    static let thresholdPages: Int32 = 4_000

    private struct Target: @unchecked Sendable {
        weak var pool: DatabasePool?
    }

    private let longWrites: LongWrites
    private let sync: WALSync
    private let target = Mutex(Target())
    private let scheduled = Atomic<Bool>(false)
    private let completed = Atomic<Int>(0)

    init(longWrites: LongWrites, sync: WALSync) {
        self.longWrites = longWrites
        self.sync = sync
    }

    /// Checkpoints finished so far (for tests and diagnostics).
    var count: Int { completed.load(ordering: .relaxed) }

    /// A checkpoint is scheduled or running (for tests and diagnostics).
    var pending: Bool { scheduled.load(ordering: .acquiring) }

    /// Replaces the automatic checkpoint of `db` (the write connection) with this one. Call it
    /// from `prepareDatabase`; it keeps `self` alive for as long as the connection's
    /// configuration holds the closure that calls it.
    func install(on db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_wal_hook(connection, { context, _, _, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpoints>.fromOpaque(context).takeUnretainedValue().walGrew(to: pages)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The pool whose writer checkpoints; held weakly (the pool's configuration holds `self`).
    func attach(_ pool: DatabasePool) {
        target.withLock { $0.pool = pool }
    }

    /// Called by SQLite after each commit with the WAL's size in pages.
    private func walGrew(to pages: Int32) {
        sync.committed()
        guard pages >= Self.thresholdPages,
              !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task.detached { await self.run() }
    }

    /// One passive checkpoint: it never waits for readers, and a failure (the store closing) is
    /// left for the next commit past the threshold to try again.
    func run() async {
        defer { scheduled.store(false, ordering: .releasing) }
        guard let pool = target.withLock({ $0.pool }) else { return }
        do {
            let done = try await longWrites.around {
                try await pool.writeWithoutTransaction { db -> Bool in
                    // A checkpoint scheduled just before the store closed finds no connection.
                    guard db.sqliteConnection != nil else { return false }
                    try db.checkpoint(.passive)
                    return true
                }
            }
            if done { completed.add(1, ordering: .relaxed) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_IOERR {
            // Its sync of the WAL may have been the one the kernel told of a lost write.
            sync.record(failure: "a WAL checkpoint failed: \(error)")
        } catch {
            return
        }
    }
}
