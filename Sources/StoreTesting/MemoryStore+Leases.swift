import Foundation
import StoreContracts

extension MemoryStore: RefreshLeaseStore {
    /// Taken when there is no lease, it expired before `now`, or `holder` has it already.
    public func acquireRefreshLease(sessionId: String, holder: String, until: Date, now: Date) async throws -> Bool {
        try transaction { tables in
            if let lease = tables.refreshLeases[sessionId], lease.expiresAt >= now, lease.holder != holder { return false }
            tables.refreshLeases[sessionId] = LeaseRow(holder: holder, expiresAt: until)
            return true
        }
    }

    public func releaseRefreshLease(sessionId: String, holder: String) async throws {
        try transaction { tables in
            if tables.refreshLeases[sessionId]?.holder == holder { tables.refreshLeases[sessionId] = nil }
        }
    }
}
