import GRDB

/// The writes of one turn on the writer connection (``WriterTurns``), in one transaction.
///
/// The turn's first write begins the transaction (`BEGIN IMMEDIATE`); every later write is a
/// savepoint inside it, so one that fails undoes its own changes and nothing else; the turn's
/// end commits them all at once (``finish()``). A turn of reads alone begins nothing. A read
/// after a write sees it before the commit, which is safe because no caller of the turn gets its
/// result before the commit, and none gets a success if the commit fails.
///
/// The statements are prepared once per connection: GRDB's `inTransaction` parses `BEGIN` and
/// `COMMIT` anew every time (with its statement authorizer), which was about 2.5% of a sign-in's
/// CPU.
final class TurnTransaction {
    let db: Database
    /// A write of this turn began the transaction, and it has not ended.
    private var began = false
    /// A write failed and its changes could not be undone alone: the transaction was rolled back
    /// (or is to be), and the turn fails.
    private var broken = false

    init(_ db: Database) {
        self.db = db
    }

    /// `updates` as part of the turn's transaction. Its error undoes its own changes only; the
    /// turn's first write, alone in the transaction then, undoes it all and the next write begins
    /// anew (that first `BEGIN` may fail busy: another process holds the write lock).
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        if broken { throw RolledBack() }
        guard began else { return try firstWrite(updates) }
        // SQLite rolled the whole transaction back after an earlier write's error (a full disk,
        // an I/O error): the turn fails at its end, so this write must not begin a new one.
        guard db.isInsideTransaction else { throw RolledBack() }
        try db.cachedStatement(sql: "SAVEPOINT turn_write").execute()
        do {
            let result = try updates(db)
            try db.cachedStatement(sql: "RELEASE SAVEPOINT turn_write").execute()
            return result
        } catch {
            if db.isInsideTransaction {
                do {
                    try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT turn_write").execute()
                    try db.cachedStatement(sql: "RELEASE SAVEPOINT turn_write").execute()
                } catch {
                    // Its changes could not be undone alone: none of the turn's may commit.
                    breakTurn()
                }
            }
            throw error
        }
    }

    /// `block` on the connection as it is: inside the turn's transaction when a write began it.
    func read<T>(_ block: (Database) throws -> T) throws -> T {
        try block(db)
    }

    /// Commits the turn's writes; throws (rolling back) when the commit fails or the transaction
    /// was rolled back, so that every write of the turn fails. Leaves no transaction open.
    func finish() throws {
        defer { began = false }
        if broken || (began && !db.isInsideTransaction) {
            try? db.rollback()
            throw RolledBack()
        }
        guard began else { return }
        do {
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            // GRDB's `rollback` does nothing when SQLite already rolled back on its own.
            try? db.rollback()
            throw error
        }
    }

    private func firstWrite<T>(_ updates: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        began = true
        do {
            return try updates(db)
        } catch {
            // The first error is the one to report, as in GRDB's `inTransaction`.
            try? db.rollback()
            // Not rolled back: its changes must not commit with a later write's.
            if db.isInsideTransaction { broken = true } else { began = false }
            throw error
        }
    }

    private func breakTurn() {
        broken = true
        try? db.rollback()
    }

    /// The turn's transaction was rolled back after an error of one of its writes.
    struct RolledBack: Error, CustomStringConvertible {
        var description: String { "the write transaction was rolled back after an earlier error in it" }
    }
}
