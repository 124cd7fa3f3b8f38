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
/// write (``LongWrites``), so writers meanwhile wait for it suspended instead of blocking.
///
/// With `synchronous = NORMAL` SQLite syncs the WAL only when it checkpoints, so the threshold
/// alone would leave the last commits of a quiet broker (a revocation, a rotated refresh token)
/// at the mercy of a power cut for as long as the WAL stays under it — hours, on a light load.
/// Each commit therefore also makes sure a checkpoint starts within ``syncInterval``: a commit
/// finding no timer armed arms one, and when it fires a checkpoint runs unless one has already
/// covered every commit. A busy broker gets about one such checkpoint a second besides the
/// threshold's (each finds a second's worth of WAL, or less); an idle one runs none.
final class WALCheckpoints: Sendable {
    /// The WAL size, in pages, at which a checkpoint is scheduled: four times SQLite's default.
    ///
    /// A checkpoint copies each page the WAL holds once, however often it was rewritten since
    /// the last one; hot pages (index interiors, the newest leaves of the expiry indexes) are
    /// rewritten by nearly every transaction. Measured per request (docs/benchmarks.md, the
    /// fourteenth stop, `scripts/costs.py`): at 4,000 pages the broker's threads off the event
    /// loops — the checkpoints, nearly all of it — spend half the CPU per code exchange and per
    /// refresh they spent at 1,000, and each writes a tenth fewer bytes. The WAL file grows
    /// further before it is reused from its start (about 18 MB under the benchmark; SQLite does
    /// not truncate it). The commits a power cut can take back are bounded by ``syncInterval``,
    /// not by this threshold.
    static let thresholdPages: Int32 = 4_000

    /// At most how long a commit waits for the checkpoint that syncs it to disk (it bounds what
    /// a power cut can take back): one second, as the throttle's counters.
    static let syncInterval: Duration = .seconds(1)

    private struct Target: @unchecked Sendable {
        weak var pool: DatabasePool?
    }

    private let longWrites: LongWrites
    private let target = Mutex(Target())
    private let scheduled = Atomic<Bool>(false)
    private let completed = Atomic<Int>(0)
    private let completedPastThreshold = Atomic<Int>(0)
    /// A timer is armed to check, ``syncInterval`` after a commit, that a checkpoint covered it.
    private let timerArmed = Atomic<Bool>(false)
    /// Commits on the write connection so far, and how many of them the last checkpoint covered.
    /// Both change only on the write connection, which runs one thing at a time: a checkpoint
    /// starting there covers exactly the commits counted when it starts.
    private let commits = Atomic<Int>(0)
    private let synced = Atomic<Int>(0)

    init(longWrites: LongWrites) {
        self.longWrites = longWrites
    }

    /// Checkpoints finished so far, for either reason (for tests and diagnostics).
    var count: Int { completed.load(ordering: .relaxed) }

    /// Checkpoints finished so far because the WAL reached the threshold (for tests).
    var countPastThreshold: Int { completedPastThreshold.load(ordering: .relaxed) }

    /// A checkpoint is scheduled or running (for tests and diagnostics).
    var pending: Bool { scheduled.load(ordering: .acquiring) }

    /// Some commit is not yet covered by a finished checkpoint: a power cut now could take it
    /// back (for tests and diagnostics).
    var unsynced: Bool { synced.load(ordering: .acquiring) < commits.load(ordering: .acquiring) }

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

    /// Forgets the pool when the store closes: a timer or checkpoint still under way then does
    /// nothing (closing the last connection checkpoints the WAL itself).
    func detach() {
        target.withLock { $0.pool = nil }
    }

    /// Called by SQLite after each commit with the WAL's size in pages.
    private func walGrew(to pages: Int32) {
        commits.add(1, ordering: .acquiringAndReleasing)
        if !timerArmed.exchange(true, ordering: .acquiringAndReleasing) {
            Task.detached { await self.syncWhenDue() }
        }
        guard pages >= Self.thresholdPages,
              !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task.detached { await self.run() }
    }

    /// The timer: ``syncInterval`` after the commit that armed it, a checkpoint unless one already
    /// covered every commit. It disarms before it looks, so a commit after the look arms the next.
    private func syncWhenDue() async {
        try? await Task.sleep(for: Self.syncInterval)
        timerArmed.store(false, ordering: .sequentiallyConsistent)
        guard unsynced else { return }
        // A checkpoint that failed while the store is open (another process checkpointing) is
        // tried again a second later, without waiting for a commit that may never come.
        if await checkpoint() == .failed, !timerArmed.exchange(true, ordering: .acquiringAndReleasing) {
            Task.detached { await self.syncWhenDue() }
        }
    }

    /// The checkpoint past the threshold; a failure (the store closing) is left for the next
    /// commit past it to try again.
    func run() async {
        defer { scheduled.store(false, ordering: .releasing) }
        if await checkpoint() == .done { completedPastThreshold.add(1, ordering: .relaxed) }
    }

    private enum Outcome { case done, closed, failed }

    /// One passive checkpoint: it never waits for readers. It syncs the WAL before it copies
    /// pages back, so the commits it finds are safe from a power cut when it returns.
    @discardableResult
    private func checkpoint() async -> Outcome {
        guard let pool = target.withLock({ $0.pool }) else { return .closed }
        do {
            let outcome = try await longWrites.around {
                try await pool.writeWithoutTransaction { db -> Outcome in
                    // A checkpoint scheduled just before the store closed finds no connection.
                    guard db.sqliteConnection != nil else { return .closed }
                    let covered = self.commits.load(ordering: .acquiring)
                    try db.checkpoint(.passive)
                    self.synced.store(covered, ordering: .releasing)
                    return .done
                }
            }
            if outcome == .done { completed.add(1, ordering: .relaxed) }
            return outcome
        } catch {
            return .failed
        }
    }
}
