import Foundation
import IdentityCore
import StoreContracts
import Testing

/// The smaller records: one-time grants, QR sign-ins, SSO records, refresh leases, connector
/// documents.
extension StoreConformance {
    static func oneTimeGrants(_ roles: StoreRoles) async throws {
        let (grants, now) = (roles.oneTimeGrants, StoreFixtures.now)
        let payload = Data("sealed-payload".utf8)
        try await grants.insertOneTimeGrant(hash: "h1", sealed: payload, expiresAt: now.addingTimeInterval(300))
        let taken = try await grants.takeOneTimeGrant(hash: "h1")
        #expect(taken?.sealed == payload)
        #expect(taken?.expiresAt.timeIntervalSince1970 == now.addingTimeInterval(300).timeIntervalSince1970)
        #expect(try await grants.takeOneTimeGrant(hash: "h1") == nil)
        #expect(try await grants.takeOneTimeGrant(hash: "unknown") == nil)

        try await grants.insertOneTimeGrant(hash: "race", sealed: payload, expiresAt: now.addingTimeInterval(300))
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 { group.addTask { try await grants.takeOneTimeGrant(hash: "race") != nil } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)

        try await grants.insertOneTimeGrant(hash: "old", sealed: payload, expiresAt: now.addingTimeInterval(10))
        try await grants.insertOneTimeGrant(hash: "young", sealed: payload, expiresAt: now.addingTimeInterval(600))
        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(60))
        #expect(try await grants.takeOneTimeGrant(hash: "old") == nil)
        #expect(try await grants.takeOneTimeGrant(hash: "young") != nil)
        // Replay caches: the first insert of a hash wins, later ones report it was there.
        #expect(try await grants.insertOneTimeGrantIfAbsent(hash: "seen", sealed: Data(), expiresAt: now.addingTimeInterval(300)))
        #expect(try await !grants.insertOneTimeGrantIfAbsent(hash: "seen", sealed: Data(), expiresAt: now.addingTimeInterval(300)))
    }

    static func qrLogins(_ roles: StoreRoles) async throws {
        let (logins, now) = (roles.qrLogins, StoreFixtures.now)
        try await logins.insertQRLogin(StoreFixtures.qrLogin("q1"))
        #expect(try await logins.qrLogin(codeHash: "q1") == StoreFixtures.qrLogin("q1"))
        #expect(try await logins.qrLogin(codeHash: "nope") == nil)

        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                group.addTask {
                    try await logins.settleQRLogin(codeHash: "q1", index % 2 == 0 ? .confirmed(sessionId: "s\(index)", subject: "sub")
                                                                                  : .refused(cause: "mistake"), at: now)
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        let settled = try #require(try await logins.qrLogin(codeHash: "q1"))
        #expect(settled.state != .pending)
        #expect(settled.state == .confirmed ? settled.sessionId != nil && settled.refusal == nil : settled.refusal == "mistake")

        try await logins.insertQRLogin(StoreFixtures.qrLogin("q2", expiresIn: 10))
        #expect(try await !logins.settleQRLogin(codeHash: "q2", .refused(cause: "unauthorized"), at: now.addingTimeInterval(11)))
        #expect(try await logins.qrLogin(codeHash: "q2")?.state == .pending)

        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(3600))
        #expect(try await logins.qrLogin(codeHash: "q2") != nil)
        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(86_400 + 200))
        #expect(try await logins.qrLogin(codeHash: "q2") == nil)
    }

    static func ssoRecords(_ roles: StoreRoles) async throws {
        let (sso, now) = (roles.sso, StoreFixtures.now)
        let entry = SSORecord.Entry(namespace: "env:kid/svc", sessionId: "s1", userId: "alice", signedInAt: now)
        let record = SSORecord(entries: [entry], expiresAt: now.addingTimeInterval(600))
        #expect(try await sso.ssoRecord(hash: "b1") == nil)
        try await sso.saveSSORecord(record, hash: "b1")
        #expect(try await sso.ssoRecord(hash: "b1") == record)
        let second = SSORecord.Entry(namespace: "env:kid/ldap", sessionId: "s2", userId: "Alice", signedInAt: now.addingTimeInterval(5))
        let replaced = SSORecord(entries: [second, entry], expiresAt: now.addingTimeInterval(60))
        try await sso.saveSSORecord(replaced, hash: "b1")
        #expect(try await sso.ssoRecord(hash: "b1") == replaced)
        try await sso.saveSSORecord(record, hash: "b2")
        try await sso.deleteSSORecord(hash: "b2")
        try await sso.deleteSSORecord(hash: "b2")
        #expect(try await sso.ssoRecord(hash: "b2") == nil)
        // The replacement's own expiry counts.
        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(120))
        #expect(try await sso.ssoRecord(hash: "b1") == nil)
    }

    static func refreshLeases(_ roles: StoreRoles) async throws {
        let (leases, now) = (roles.leases, StoreFixtures.now)
        let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await leases.acquireRefreshLease(sessionId: "s1", holder: "h\(index)", until: now.addingTimeInterval(45), now: now)
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(taken == 1)
        #expect(try await leases.acquireRefreshLease(sessionId: "s2", holder: "a", until: now.addingTimeInterval(45), now: now))
        #expect(try await leases.acquireRefreshLease(sessionId: "s2", holder: "a", until: now.addingTimeInterval(90), now: now), "renewed")
        #expect(try await !leases.acquireRefreshLease(sessionId: "s2", holder: "b", until: now.addingTimeInterval(90),
                                                      now: now.addingTimeInterval(60)), "a's until it expires")
        try await leases.releaseRefreshLease(sessionId: "s2", holder: "b")
        #expect(try await !leases.acquireRefreshLease(sessionId: "s2", holder: "b", until: now.addingTimeInterval(90), now: now), "not b's")
        #expect(try await leases.acquireRefreshLease(sessionId: "s2", holder: "b", until: now.addingTimeInterval(200),
                                                     now: now.addingTimeInterval(91)), "expired: taken over")
        try await leases.releaseRefreshLease(sessionId: "s2", holder: "b")
        #expect(try await leases.acquireRefreshLease(sessionId: "s2", holder: "c", until: now.addingTimeInterval(45), now: now))
        // Housekeeping forgets expired leases.
        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(50))
        #expect(try await leases.acquireRefreshLease(sessionId: "s2", holder: "d", until: now.addingTimeInterval(100), now: now))
    }

    static func connectorDocuments(_ roles: StoreRoles) async throws {
        let (documents, now, key) = (roles.connectorDocuments, StoreFixtures.now, "saml-idp-metadata:https://idp/md")
        #expect(try await documents.connectorDocument(key: key) == nil)
        let first = StoredConnectorDocument(data: Data("<md v1/>".utf8), fetchedAt: now)
        try await documents.saveConnectorDocument(first, key: key)
        #expect(try await documents.connectorDocument(key: key) == first)
        // Another instance's older fetch arrives late: the newer copy stays.
        try await documents.saveConnectorDocument(StoredConnectorDocument(data: Data("<md v0/>".utf8), fetchedAt: now.addingTimeInterval(-60)),
                                                  key: key)
        #expect(try await documents.connectorDocument(key: key) == first)
        let second = StoredConnectorDocument(data: Data("<md v2/>".utf8), fetchedAt: now.addingTimeInterval(60))
        try await documents.saveConnectorDocument(second, key: key)
        #expect(try await documents.connectorDocument(key: key) == second)
        // Kept through housekeeping: the last good copy has no expiry.
        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(86_400 * 365))
        #expect(try await documents.connectorDocument(key: key) == second)
        #expect(try await documents.connectorDocument(key: "other") == nil)
    }
}
