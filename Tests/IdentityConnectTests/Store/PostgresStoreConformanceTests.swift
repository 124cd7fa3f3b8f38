import PostgresStore
import StoreContracts
import StoreTesting
import Testing

/// The store conformance suite (`StoreConformance`) on the PostgreSQL backend, each check on a
/// database of its own; skipped, saying why, without `IDCONNECT_POSTGRES_URL`.
@Suite("Store conformance: PostgreSQL", .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
struct PostgresStoreConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: StoreCheck) async throws {
        try await check.run { StoreRoles(all: try await PostgresStore.open(url: PostgresTestDatabase.create())) }
    }
}
