import Foundation
import IdentityCore
import StoreContracts

/// Every store role in memory, for tests: so that engine parts and controllers can be tested
/// without SQLite files, PostgreSQL servers or sockets. The store conformance suite
/// (``StoreConformance``) holds it to the same rules as the SQL backends.
///
/// It is not a production backend: nothing survives the process, it serves one process only, and
/// `idconnect serve` never opens it (`StorageLocation` has no scheme for it). Its semantics are
/// the SQLite backend's, call for call: single use, compare-and-swap, the multi-row writes made
/// whole or not at all, the throttle's reservations, what housekeeping purges and when (one
/// exception: user ids match without regard to case beyond ASCII, see `liveSessions`). Every
/// call is one step under one lock (``MemoryDatabase``), so it is atomic and concurrent calls are
/// decided one at a time; rows are the records themselves, copied in and out.
public final class MemoryStore: Sendable {
    let database = MemoryDatabase()
    /// Writes that can end or change an access context (`accessContextChanges`).
    let accessChanges = ChangeCounter()

    /// An empty store. Time comes from the callers (every call that needs it takes a date), so
    /// it works with any clock, a manual one included.
    public init() {}

    /// An empty store as the roles a composition root takes.
    public static func open() -> StoreRoles { MemoryStore().roles }

    /// This store in every role.
    public var roles: StoreRoles { StoreRoles(all: self) }

    /// A write that would break a constraint the SQL backends' schemas declare (a primary key or
    /// a unique column already taken): the call stored nothing, as a failed transaction would.
    public struct ConstraintViolation: Error, CustomStringConvertible {
        public let table: String
        public let key: String
        public var description: String { "\(table): \(key) is taken" }
    }

    /// A call on a store that was closed (`MaintenanceStore.close()`), as on a closed database.
    public struct Closed: Error, CustomStringConvertible {
        public var description: String { "the memory store is closed" }
    }

    /// Runs `body` as one transaction on the tables (see ``MemoryDatabase``).
    func transaction<T: Sendable>(_ body: (inout MemoryTables) throws -> T) throws -> T {
        try database.transaction(body)
    }

    /// A read of the tables as they are now.
    func read<T: Sendable>(_ body: (MemoryTables) throws -> T) throws -> T {
        try database.transaction { tables in try body(tables) }
    }

    /// A write that can end or change an access context: counted once it returned or failed, as
    /// the SQL backends count theirs (`AccessTokenStore.accessContextChanges`).
    func accessContextWrite<T: Sendable>(_ body: (inout MemoryTables) throws -> T) throws -> T {
        defer { accessChanges.bump() }
        return try database.transaction(body)
    }
}
