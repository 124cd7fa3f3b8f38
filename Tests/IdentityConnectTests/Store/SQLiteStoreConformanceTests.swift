import SQLiteStore
import StoreContracts
import StoreTesting
import Testing

/// The store conformance suite (`StoreConformance`) on the SQLite backend, each check on a new file.
@Suite("Store conformance: SQLite")
struct SQLiteStoreConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: StoreCheck) async throws {
        try await check.run { StoreRoles(all: try SQLiteStore(path: StoreBackend.temporarySQLitePath())) }
    }
}
