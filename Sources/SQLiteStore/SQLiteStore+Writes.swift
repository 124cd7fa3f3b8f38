import EventLoopAffinity
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

extension SQLiteStore {
    /// A short write transaction — the few rows a request inserts or changes by key — run on the
    /// caller's thread.
    ///
    /// Handing each write to GRDB's writer queue and back cost two cross-thread wake-ups, about as
    /// much CPU as the write itself: a sign-in writes three times, a code exchange and a refresh
    /// twice. Here GRDB's synchronous `write` runs the transaction in place (`DispatchQueue.sync`
    /// on the idle writer queue does not switch threads). The two loops take the writer in turn
    /// (``WriterTurns``): a write that finds the other loop writing is handed to it and run right
    /// after, and its caller suspends meanwhile instead of parking its loop's thread. The writes
    /// of one turn share a transaction and its commit (``TurnTransaction``).
    ///
    /// Nothing long runs this way. While a long write (``writeOffLoop(_:)``, a WAL checkpoint:
    /// ``WALCheckpoints``) is queued or running, short writes queue behind it on GRDB's queue
    /// instead, and the caller suspends. (One that looked just before a long write was queued
    /// waits for it in place: the window is the length of the check.) SQLite does not wait here for another process holding the
    /// database's write lock (an operator command on the same file): the transaction starts with
    /// a zero busy timeout and, if the lock is taken, runs again off this thread, where it waits
    /// up to ``busyTimeout``.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writerTurns.run { [longWrites] turn in
                guard longWrites.none else { throw LongWriteQueued() }
                return try turn.write(updates)
            }
        } catch is LongWriteQueued {
            // Queue behind it, suspended.
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            // Another process holds the write lock: wait for it off this thread.
        }
        return try await writeOffLoop(updates)
    }

    /// A point read (``pointRead(_:)``'s kind: a few rows by key) on the writer connection, on
    /// the caller's thread, for rows of the tables every sign-in, code exchange and refresh writes:
    /// pending authorizations, codes, sessions, token families.
    ///
    /// In WAL mode SQLite drops a connection's page cache when it starts a read after another
    /// connection committed, so a point reader's lookup right after a write reads its pages again
    /// from the files. The writer's cache is current: its own commits are the changes. A sign-in's
    /// read of its pending authorization took 99 µs on a point reader and 36 µs here, one at a
    /// time. It takes its turn on the writer like a short write (``WriterTurns``), and goes to a
    /// point reader while a long write is queued or running (``writeOffLoop(_:)``)
    /// or when SQLite would make it wait (busy: a WAL recovery), never waiting on the loop.
    /// Reads that follow no write of their own (validation) stay on the point readers, which
    /// serve both event loops at once.
    func writerRead<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writerTurns.run { [longWrites] turn in
                guard longWrites.none else { throw LongWriteQueued() }
                return try turn.read(block)
            }
        } catch is LongWriteQueued {
            // Fall through to a point reader.
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            // Fall through to a point reader, which waits off this thread if it must.
        }
        return try await pointRead(block)
    }

    /// A write transaction on GRDB's writer queue, for writes that may touch many rows or wait.
    /// Short writes made meanwhile queue behind it. The caller continues on its own event loop
    /// afterwards (`EventLoopAffinity`).
    func writeOffLoop<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await EventLoopAffinity.returning {
            try await longWrites.around { try await pool.write(updates) }
        }
    }

    /// The turns on the writer connection: each turn's jobs run on the holder's thread inside one
    /// ``TurnTransaction``, committed before any of their callers is resumed. A turn does not
    /// start while a long write is queued or running: it would wait for it on GRDB's queue with
    /// the holder's thread blocked; its jobs fail with ``LongWriteQueued`` instead and their
    /// callers go elsewhere (each job checks again: one may be queued while the turn runs).
    static func writerTurns(_ pool: DatabasePool, longWrites: LongWrites) -> WriterTurns<TurnTransaction> {
        WriterTurns { body in
            guard longWrites.none else { throw LongWriteQueued() }
            try onWriterHere(pool) { db in
                let turn = TurnTransaction(db)
                body(turn)
                try turn.finish()
            }
        }
    }

    /// `body` on the writer connection, on this thread, with a zero busy timeout: SQLite answers
    /// busy at once instead of waiting on the loop, and the caller goes elsewhere. Not `async`, so
    /// GRDB's synchronous `writeWithoutTransaction` is the one called.
    private static func onWriterHere<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in
            // Closed (`close()` at shutdown): SQLite must never see the null connection.
            guard let connection = db.sqliteConnection else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed")
            }
            sqlite3_busy_timeout(connection, 0)
            defer { sqlite3_busy_timeout(connection, Int32(Self.busyTimeout * 1_000)) }
            return try body(db)
        }
    }
}

/// A long write is queued or running on GRDB's writer queue: the short write or writer read that
/// found it goes elsewhere instead of blocking its thread behind it.
private struct LongWriteQueued: Error {}

/// Counts the writes queued or running on GRDB's writer queue that may take long; while there is
/// one, ``SQLiteStore/write(_:)`` does not block its caller's thread behind it.
final class LongWrites: Sendable {
    private let active = Atomic<Int>(0)

    /// No long write is queued or running.
    var none: Bool { active.load(ordering: .acquiring) == 0 }

    /// Runs `body` (which queues a write on GRDB's writer queue) counted as a long write.
    func around<T>(_ body: () async throws -> T) async rethrows -> T {
        active.add(1, ordering: .acquiringAndReleasing)
        defer { active.subtract(1, ordering: .acquiringAndReleasing) }
        return try await body()
    }
}
