import Foundation
import StoreContracts

extension MemoryStore: MaintenanceStore {
    /// Answers until the store is closed.
    public func ping() async throws {
        try read { _ in }
    }

    /// What the SQLite backend purges, counted as it counts: rows that expired before `date`;
    /// codes and QR sign-ins a day later (a late replay still revokes what a code issued, a late
    /// app still hears "expired"); sessions with their families (and those families' retired
    /// refresh tokens); signing keys past their removal. Leases and retired tokens go uncounted;
    /// registered instances, second factors and connector documents stay. Throttle counters count
    /// as the rows they are (SQLite counts those of its table, which trails its counters by a second).
    public func purgeExpired(before date: Date) async throws -> Int {
        let dayEarlier = date.addingTimeInterval(-86_400)
        return try transaction { tables in
            var removed = 0
            func purge<Row>(_ table: inout [String: Row], _ expired: (Row) -> Bool, counted: Bool = true) {
                let keys = table.filter { expired($0.value) }.map(\.key)
                for key in keys { table[key] = nil }
                if counted { removed += keys.count }
            }
            purge(&tables.pending) { $0.expiresAt < date }
            purge(&tables.opaqueTokens) { $0.expiresAt < date }
            purge(&tables.revokedAccessTokens) { $0 < date }
            purge(&tables.ssoRecords) { $0.expiresAt < date }
            purge(&tables.oneTimeGrants) { $0.expiresAt < date }
            purge(&tables.throttle) { $0.expiresAt < date }
            purge(&tables.refreshLeases, { $0.expiresAt < date }, counted: false)
            purge(&tables.codes) { $0.code.expiresAt < dayEarlier }
            let endedSessions = Set(tables.sessions.values.filter { $0.expiresAt < date }.map(\.id))
            let endedFamilies = Set(tables.families.values.filter { endedSessions.contains($0.sessionId) }.map(\.id))
            purge(&tables.retiredRefreshTokens, { endedFamilies.contains($0) }, counted: false)
            purge(&tables.families) { endedFamilies.contains($0.id) }
            purge(&tables.sessions) { endedSessions.contains($0.id) }
            purge(&tables.signingKeys) { $0.removeAfter.map { $0 < date } ?? false }
            purge(&tables.qrLogins) { $0.expiresAt < dayEarlier }
            purge(&tables.devices) { $0.expiresAt < dayEarlier }
            return removed
        }
    }

    /// Refuses every later call, as a closed database does.
    public func close() async throws {
        database.close()
    }
}
