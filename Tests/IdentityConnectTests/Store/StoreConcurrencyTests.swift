import Foundation
import IdentityCore
import StoreContracts
import Testing

/// Many concurrent lookups of the kind validate makes, mixed with ordinary async reads and
/// writes, must all finish. The SQLite backend once read on the caller's thread from the same
/// connection pool its async readers use, and deadlocked under load: every cooperative thread
/// waited for a connection held by a suspended reader that needed one of them to resume.
@Suite("Store under concurrent load")
struct StoreConcurrencyTests {
    @Test("2,000 concurrent validate lookups, async reads and writes all complete", arguments: StoreBackend.allCases)
    func mixedLoad(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let now = StoreConformanceTests.now
        for index in 0..<20 {
            try await store.insertSession(StoreConformanceTests.session("s\(index)"))
            try await store.insertFamily(StoreConformanceTests.family("f\(index)", session: "s\(index)", refresh: "r\(index)"))
        }
        // A hang here would hang the whole test run; fail it loudly instead.
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if finished.wait(timeout: .now() + 60) == .timedOut {
                fatalError("Store under concurrent load: lookups did not finish within 60 s (deadlock)")
            }
        }
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<2_000 {
                let key = index % 20
                group.addTask {
                    switch index % 4 {
                    case 0: return try await store.accessContext(familyId: "f\(key)", jti: "j\(index)") != nil
                    case 1: return try await store.session(id: "s\(key)") != nil
                    case 2: return try await store.family(refreshHash: "r\(key)") != nil
                    default:
                        try await store.revokeAccessToken(jti: "j\(index)", expiresAt: now.addingTimeInterval(60))
                        return true
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        finished.signal()
        #expect(found == 2_000)
        try await store.close()
    }
}
