import Foundation
import StoreContracts
import Testing

/// Token families: refresh tokens rotate by compare-and-swap and are recognised as current,
/// previous or retired; revoking one app's family ends the session only when nothing in it is live.
extension StoreConformance {
    static func refreshRotation(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.sessions.insertSession(StoreFixtures.session("s1"))
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        #expect(try await roles.families.family(refreshHash: "r1")?.0.id == "f1")
        #expect(try await roles.families.family(refreshHash: "r1")?.1 == .current)
        #expect(try await roles.families.family(refreshHash: "unknown") == nil)
        let families = roles.families
        let rotated = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await families.rotateRefresh(familyId: "f1", from: "r1", to: "r2-\(index)", expiresAt: now.addingTimeInterval(9000),
                                                     graceResponse: Data([7]), at: now)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(rotated.filter { $0 }.count == 1)
        let family = try #require(try await roles.families.family(id: "f1"))
        let second = try #require(family.refreshHash)
        #expect(family.previousRefreshHash == "r1" && family.graceResponse == Data([7]) && family.rotatedAt == now)
        #expect(try await roles.families.family(refreshHash: "r1")?.1 == .previous)
        #expect(try await roles.families.family(refreshHash: second)?.1 == .current)
        // A second rotation retires r1 for good.
        #expect(try await roles.families.rotateRefresh(familyId: "f1", from: second, to: "r9", expiresAt: now.addingTimeInterval(9000),
                                                       graceResponse: nil, at: now))
        #expect(try await roles.families.family(refreshHash: "r1")?.1 == .retired)
        #expect(try await roles.families.family(refreshHash: second)?.1 == .previous)
        #expect(try await roles.families.family(id: "f1")?.graceResponse == nil)
        // Rotation extends the session to the new refresh expiry.
        #expect(try await roles.sessions.session(id: "s1")?.expiresAt == now.addingTimeInterval(9000))
        try await roles.families.revokeFamily(id: "f1", at: now)
        #expect(try await !roles.families.rotateRefresh(familyId: "f1", from: "r9", to: "r3", expiresAt: now,
                                                        graceResponse: nil, at: now))
    }

    static func perAppRevocation(_ roles: StoreRoles) async throws {
        let (now, families, sessions) = (StoreFixtures.now, roles.families, roles.sessions)
        let window = now.addingTimeInterval(-3600)
        try await sessions.insertSession(StoreFixtures.session("s1"))
        try await sessions.insertSession(StoreFixtures.session("s2"))
        try await families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        var other = StoreFixtures.family("f2", session: "s1", refresh: "r2")
        other.clientId = "dyn~CSI~x"
        try await families.insertFamily(other)
        other.id = "f3"; other.sessionId = "s2"; other.refreshHash = "r3"
        try await families.insertFamily(other)
        #expect(try await families.revokeFamily(id: "f1", at: now))
        #expect(try await families.revokeFamily(id: "f1", at: now.addingTimeInterval(5)), "a revoked family is still there")
        #expect(try await families.family(id: "f1")?.revokedAt == now)
        #expect(try await !families.revokeFamily(id: "not-yet-inserted", at: now))
        #expect(try await !families.endSessionIfUnused(id: "s1", at: now, issuedAfter: window))
        #expect(try await sessions.session(id: "s1")?.revokedAt == nil)
        #expect(try await families.revokeFamilies(clientId: "dyn~CSI~x", at: now).sorted() == ["s1", "s2"])
        #expect(try await families.family(id: "f3")?.revokedAt == now)
        #expect(try await families.revokeFamilies(clientId: "dyn~CSI~x", at: now).isEmpty)
        #expect(try await families.endSessionIfUnused(id: "s1", at: now, issuedAfter: window))
        let ended = try #require(try await sessions.session(id: "s1"))
        #expect(ended.revokedAt == now && ended.sealedUpstream == nil)
        #expect(try await !families.endSessionIfUnused(id: "s1", at: now.addingTimeInterval(5), issuedAfter: window))
        #expect(try await sessions.session(id: "s1")?.revokedAt == now)

        // A family without a refresh token keeps the session while its access token may be valid.
        try await sessions.insertSession(StoreFixtures.session("s3"))
        try await families.insertFamily(StoreFixtures.family("f4", session: "s3", refresh: nil))
        #expect(try await !families.endSessionIfUnused(id: "s3", at: now, issuedAfter: window))
        #expect(try await families.endSessionIfUnused(id: "s3", at: now, issuedAfter: now.addingTimeInterval(1)))
        #expect(try await families.family(id: "f4")?.revokedAt == nil, "only the session ends")
        // A family whose refresh token expired and whose last issuance is old does not.
        try await sessions.insertSession(StoreFixtures.session("s4"))
        try await families.insertFamily(StoreFixtures.family("f5", session: "s4", refresh: "r5"))
        let later = now.addingTimeInterval(7201)
        #expect(try await families.endSessionIfUnused(id: "s4", at: later, issuedAfter: later.addingTimeInterval(-3600)))
        // A replayed code whose first redemption has not stored its family yet: there is no family
        // to revoke, so the caller (`AppRevocation`) ends the whole session, families and all.
        try await sessions.insertSession(StoreFixtures.session("s5"))
        try await families.insertFamily(StoreFixtures.family("f6", session: "s5", refresh: "r6"))
        #expect(try await !families.revokeFamily(id: "minting", at: now))
        try await sessions.revokeSession(id: "s5", at: now)
        #expect(try await sessions.session(id: "s5")?.revokedAt == now)
        #expect(try await families.family(id: "f6")?.revokedAt == now)
    }
}
