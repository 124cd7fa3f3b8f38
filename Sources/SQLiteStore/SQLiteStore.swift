import Foundation
import GRDB
import StoreContracts
import IdentityCore

/// The default backend: one SQLite file in WAL mode, migrated on open
/// (docs/operations.md, "SQLite").
///
/// Scans and long writes run on GRDB's own dispatch queues (`async` access, which suspends the
/// caller instead of blocking a cooperative or event-loop thread). The few indexed point reads
/// every validate makes use `pointRead`, and the short writes of a request use `write`: both run
/// on the caller's thread (see there).
public final class SQLiteStore: Sendable {
    let pool: DatabasePool
    /// Read-only connections used only synchronously by `pointRead` (see there).
    let pointReaders: DatabasePool
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    /// Writes that can end or change an access context (``accessContextChanges``).
    let accessChanges = ChangeCounter()
    /// Writes on GRDB's queue that short writes must not block behind (``write(_:)``).
    let longWrites: LongWrites
    /// The two event loops' turns on the writer connection (``write(_:)``, ``writerRead(_:)``).
    let writerTurns: WriterTurns<TurnTransaction>
    /// The WAL checkpoints, off the commits that trigger them.
    let checkpoints: WALCheckpoints
    /// The WAL's syncs to disk, at most a second after a commit.
    let walSync: WALSync
    /// The login throttle's counters (``ThrottleCounters``), kept in the `throttle` table.
    let throttle = ThrottleCounters()
    /// The pending authorizations stored most recently (``PendingCache``).
    let pendingCache = PendingCache()
    /// How long a write waits for another process (an operator command) holding the database's
    /// write lock, off the event loops (``write(_:)``).
    static let busyTimeout: TimeInterval = 10

    /// Opens (creating directories and the file as needed) and migrates the database at `path`.
    /// The directory it creates is the broker's alone (0700) and the database with its `-wal` and
    /// `-shm` files are readable by the broker's user only (0600, docs/security.md, rule 16):
    /// sessions hold personal data. SQLite gives the journal files the database file's mode.
    public convenience init(path: String) throws {
        try self.init(path: path, walSync: WALSync())
    }

    /// The same, with the WAL's syncs made by `walSync` (tests: another interval, failures).
    init(path: String, walSync: WALSync) throws {
        let url = URL(fileURLWithPath: path)
        try Self.preparePrivateFiles(url)
        let longWrites = LongWrites()
        let checkpoints = WALCheckpoints(longWrites: longWrites, sync: walSync)
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.maximumReaderCount = 8
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if !db.configuration.readonly, let connection = db.sqliteConnection {
                checkpoints.install(on: db)
                walSync.locate(connection)
            }
        }
        self.longWrites = longWrites
        self.checkpoints = checkpoints
        self.walSync = walSync
        pool = try DatabasePool(path: url.path, configuration: configuration)
        writerTurns = Self.writerTurns(pool, longWrites: longWrites)
        checkpoints.attach(pool)
        try Self.migrator.migrate(pool)
        var readOnly = Configuration()
        readOnly.readonly = true
        // Short: these reads run on the caller's (event loop) thread. WAL readers are almost
        // never busy; when one is (WAL recovery), `pointRead` retries on GRDB's own queue.
        readOnly.busyMode = .timeout(0.1)
        readOnly.maximumReaderCount = 4
        pointReaders = try DatabasePool(path: url.path, configuration: readOnly)
        throttle.load(try Self.storedThrottleCounters(pool))
    }

    /// Runs a short read of a few rows by primary key on the calling thread.
    ///
    /// Hopping to a GRDB queue and back (`await pool.read`) cost several times the lookups
    /// themselves and was the largest share of a validate request. This reads on the caller's
    /// thread instead, from a separate set of read-only connections that are only ever used this
    /// way: nobody holds one across a suspension, so a wait for a connection is bounded by
    /// another lookup (sharing `pool` deadlocked once every cooperative thread waited for a
    /// connection held by a suspended async reader). In WAL mode a reader never waits for a
    /// writer. The lookups are independent single-row reads, so they skip the transaction
    /// GRDB's `read` adds. Only for indexed single-row lookups, never scans or writes.
    ///
    /// If the database is busy (rare in WAL mode: recovery after a crash, a WAL reset), the
    /// read waits at most 100 ms here and then runs again the usual way, off this thread.
    func pointRead<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try readOnCallersThread(block)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            return try await pool.read(block)
        }
    }

    /// The synchronous read (a plain function, so the async overload of `unsafeRead` is not picked).
    private func readOnCallersThread<T>(_ block: (Database) throws -> T) throws -> T {
        try pointReaders.unsafeRead(block)
    }

    /// Creates the directory (0700) and the empty database file (0600) when missing, and takes
    /// group and other permissions away from existing files of the database.
    static func preparePrivateFiles(_ url: URL) throws {
        let files = FileManager.default
        let directory = url.deletingLastPathComponent()
        if !files.fileExists(atPath: directory.path) {
            try files.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if !files.fileExists(atPath: url.path) {
            guard files.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: url.path + suffix) {
            let mode = (try? files.attributesOfItem(atPath: url.path + suffix)[.posixPermissions] as? Int) ?? 0
            if mode & 0o077 != 0 { try files.setAttributes([.posixPermissions: mode & 0o700], ofItemAtPath: url.path + suffix) }
        }
    }


    func encode<T: Encodable>(_ value: T) throws -> Data { try encoder.encode(value) }
    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T { try decoder.decode(type, from: data) }
}

extension SQLiteStore: MaintenanceStore {
    /// Reads from the database, and fails while its last commits cannot be synced to disk
    /// (``WALSync``): the broker is then not ready (`/readyz` answers 503 and logs why).
    public func ping() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        if let failure = walSync.failure { throw WALNotSynced(description: failure) }
    }

    public func purgeExpired(before date: Date) async throws -> Int {
        let now = date.timeIntervalSince1970
        throttle.purge(before: now)
        pendingCache.purge(before: now)
        // Codes are kept a day past expiry so a late replay still revokes what the code issued.
        return try await writeOffLoop { db in
            var removed = 0
            func delete(_ sql: String, before cutoff: Double, counted: Bool = true) throws {
                try db.execute(sql: sql, arguments: [cutoff])
                if counted { removed += db.changesCount }
            }
            for table in ["pending_authorizations", "opaque_access_tokens", "revoked_access_tokens", "sso_sessions",
                          "one_time_grants", "throttle"] {
                try delete("DELETE FROM \(table) WHERE expires_at < ?", before: now)
            }
            try delete("DELETE FROM refresh_leases WHERE expires_at < ?", before: now, counted: false)
            try delete("DELETE FROM authorization_codes WHERE expires_at < ?", before: now - 86_400)
            try delete("""
                DELETE FROM retired_refresh_tokens WHERE family_id IN (
                    SELECT f.id FROM token_families f JOIN sessions s ON s.id = f.session_id WHERE s.expires_at < ?)
                """, before: now, counted: false)
            try delete("DELETE FROM token_families WHERE session_id IN (SELECT id FROM sessions WHERE expires_at < ?)", before: now)
            try delete("DELETE FROM sessions WHERE expires_at < ?", before: now)
            try delete("DELETE FROM signing_keys WHERE remove_after IS NOT NULL AND remove_after < ?", before: now)
            // QR sign-ins are kept a day past expiry, so a late app still hears "expired".
            try delete("DELETE FROM qr_logins WHERE expires_at < ?", before: now - 86_400)
            // Device authorizations too: a device polling late hears `expired_token`, not "unknown".
            try delete("DELETE FROM device_authorizations WHERE expires_at < ?", before: now - 86_400)
            return removed
        }
    }

    /// Writes the throttle's last counters (after any flush under way), closes the files, then
    /// syncs the WAL: GRDB closes the writer while readers are still open, so SQLite's own
    /// checkpoint on close may not run. Throws ``WALNotSynced`` when the last commits may not
    /// be on the disk.
    public func close() async throws {
        var waited = 0
        while throttle.flushing && waited < 1_000 {
            try? await Task.sleep(for: .milliseconds(5))
            waited += 5
        }
        try? await flushThrottle(closing: true)
        var closeError: (any Error)?
        do {
            // GRDB's `close()` waits for a write in progress on its queue: off the event loops,
            // which keep serving the connections still draining at shutdown meanwhile.
            let pointReaders = pointReaders, pool = pool
            try await Self.blocking {
                try pointReaders.close()
                try pool.close()
            }
        } catch {
            closeError = error
        }
        // Even when a connection would not close: the commits so far are synced.
        let failure = await walSync.close()
        if let closeError { throw closeError }
        if let failure { throw WALNotSynced(description: failure) }
    }
}

extension SQLiteStore {
    /// Runs `work`, which may block, on a thread of Dispatch's pool and awaits it.
    static func blocking(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { done.resume(with: Result { try work() }) }
        }
    }
}

extension Date {
    var sql: Double { timeIntervalSince1970 }
    init?(sql value: Double?) {
        guard let value else { return nil }
        self.init(timeIntervalSince1970: value)
    }
}
