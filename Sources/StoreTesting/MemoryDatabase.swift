import Synchronization

/// The tables of one ``MemoryStore`` behind one lock. Each store call reads or changes them in one
/// step under the lock, so a call is as atomic as one SQL transaction and concurrent calls are
/// decided one after another: of racing redemptions, rotations or settlements exactly one wins,
/// as on the SQL backends.
final class MemoryDatabase: Sendable {
    private struct State {
        var tables = MemoryTables()
        var closed = false
    }

    private let state = Mutex(State())

    /// Runs `body` on the tables as one transaction: when it throws, the tables are left exactly
    /// as they were (the copy taken first is put back), so a multi-row write that fails half-way
    /// stores nothing. Throws ``MemoryStore/Closed`` once the store is closed.
    func transaction<T: Sendable>(_ body: (inout MemoryTables) throws -> T) throws -> T {
        try state.withLock { state throws -> T in
            guard !state.closed else { throw MemoryStore.Closed() }
            let before = state.tables
            do {
                return try body(&state.tables)
            } catch {
                state.tables = before
                throw error
            }
        }
    }

    /// Refuses every later call.
    func close() {
        state.withLock { $0.closed = true }
    }
}
