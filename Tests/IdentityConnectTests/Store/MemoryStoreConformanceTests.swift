import StoreTesting
import Testing

/// The store conformance suite (`StoreConformance`) on `MemoryStore`, the store for tests without a
/// database: it must keep every rule the SQL backends keep.
@Suite("Store conformance: memory")
struct MemoryStoreConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: StoreCheck) async throws {
        try await check.run { MemoryStore.open() }
    }
}
