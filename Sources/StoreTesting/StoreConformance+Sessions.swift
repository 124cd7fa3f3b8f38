import Foundation
import StoreContracts
import Testing

/// Sessions: stored and read whole, upstream tokens replaced by compare-and-swap, ended with their
/// families, listed for operators, noted when used.
extension StoreConformance {
    static func sessionLifecycle(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let session = StoreFixtures.session("s1")
        try await roles.sessions.insertSession(session)
        #expect(try await roles.sessions.session(id: "s1") == session)
        #expect(try await roles.sessions.updateUpstream(sessionId: "s1", sealedUpstream: Data([9]), upstreamExpiresAt: nil,
                                                        attributes: ["email": .string("b@example.org")], expectedVersion: 0))
        #expect(try await !roles.sessions.updateUpstream(sessionId: "s1", sealedUpstream: Data([8]), upstreamExpiresAt: nil,
                                                         attributes: nil, expectedVersion: 0))
        let updated = try #require(try await roles.sessions.session(id: "s1"))
        #expect(updated.version == 1 && updated.sealedUpstream == Data([9]) && updated.attributes["email"] == .string("b@example.org"))
        // No attributes given: the stored ones stay.
        #expect(try await roles.sessions.updateUpstream(sessionId: "s1", sealedUpstream: Data([7]), upstreamExpiresAt: now,
                                                        attributes: nil, expectedVersion: 1))
        let kept = try #require(try await roles.sessions.session(id: "s1"))
        #expect(kept.version == 2 && kept.upstreamExpiresAt == now && kept.attributes == updated.attributes)
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        try await roles.sessions.revokeSession(id: "s1", at: now)
        let revoked = try #require(try await roles.sessions.session(id: "s1"))
        #expect(revoked.revokedAt == now && revoked.sealedUpstream == nil)
        #expect(try await roles.families.family(id: "f1")?.revokedAt == now)
        // A revoked session takes no new upstream token, and a second revocation keeps the first date.
        #expect(try await !roles.sessions.updateUpstream(sessionId: "s1", sealedUpstream: Data([6]), upstreamExpiresAt: nil,
                                                         attributes: nil, expectedVersion: 2))
        try await roles.sessions.revokeSession(id: "s1", at: now.addingTimeInterval(5))
        #expect(try await roles.sessions.session(id: "s1")?.revokedAt == now)
        #expect(try await roles.sessions.session(id: "missing") == nil)
    }

    static func listed(_ id: String, user: String, service: String, createdAgo: TimeInterval, expiresIn: TimeInterval = 3600) -> LoginSession {
        var session = StoreFixtures.session(id, expires: expiresIn)
        session.userId = user
        session.authServiceId = service
        session.createdAt = StoreFixtures.now.addingTimeInterval(-createdAgo)
        return session
    }

    static func liveSessionListing(_ roles: StoreRoles) async throws {
        for session in [
            listed("s1", user: "Alice", service: "ldap", createdAgo: 30),
            listed("s2", user: "alice", service: "saml", createdAgo: 20),
            listed("s3", user: "bob", service: "ldap", createdAgo: 10),
            listed("s4", user: "alice", service: "ldap", createdAgo: 5, expiresIn: -1),
            listed("s5", user: "alice", service: "ldap", createdAgo: 1),
        ] { try await roles.sessions.insertSession(session) }
        try await roles.sessions.revokeSession(id: "s5", at: StoreFixtures.now)

        func ids(_ service: String?, _ user: String?, limit: Int = 10) async throws -> [String] {
            try await roles.sessions.liveSessions(authServiceId: service, user: user, at: StoreFixtures.now, limit: limit).map(\.id)
        }
        #expect(try await ids(nil, nil) == ["s3", "s2", "s1"])
        #expect(try await ids(nil, nil, limit: 2) == ["s3", "s2"])
        #expect(try await ids("ldap", nil) == ["s3", "s1"])
        #expect(try await ids(nil, "ALICE") == ["s2", "s1"])
        #expect(try await ids("ldap", "alice") == ["s1"])
        #expect(try await ids(nil, "sub-s3") == ["s3"])
        #expect(try await ids(nil, "carol").isEmpty)
        // Filter values are data, never SQL.
        #expect(try await ids(nil, "' OR '1'='1").isEmpty)
        #expect(try await ids("x' OR auth_service_id LIKE '%", nil).isEmpty)
    }

    static func samlSession(_ id: String, subject: String, upstream: String?, expires: TimeInterval = 3600) -> LoginSession {
        var session = StoreFixtures.session(id, expires: expires)
        session.subject = subject
        session.upstreamSessionKey = upstream
        return session
    }

    static func endSessionsBySubject(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.sessions.insertSession(samlSession("a1", subject: "alice", upstream: "idx-1"))
        try await roles.sessions.insertSession(samlSession("a2", subject: "alice", upstream: "idx-2"))
        try await roles.sessions.insertSession(samlSession("a3", subject: "alice", upstream: nil))
        try await roles.sessions.insertSession(samlSession("a4", subject: "alice", upstream: "idx-1", expires: -10))
        try await roles.sessions.insertSession(samlSession("b1", subject: "bob", upstream: "idx-1"))
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "a1", refresh: "r1"))
        try await roles.families.insertFamily(StoreFixtures.family("f2", session: "a2", refresh: "r2"))
        #expect(try await roles.sessions.session(id: "a1")?.upstreamSessionKey == "idx-1")
        #expect(try await roles.sessions.session(id: "a3")?.upstreamSessionKey == nil)

        // SessionIndex idx-1: that session, and the one whose index is unknown; not idx-2, not bob's, not the expired one.
        let first = try await roles.sessions.endSessions(subject: "alice", upstreamSessionKeys: ["idx-1"], at: now)
        #expect(Set(first) == ["a1", "a3"])
        #expect(try await roles.sessions.session(id: "a1")?.revokedAt != nil)
        #expect(try await roles.sessions.session(id: "a1")?.sealedUpstream == nil)
        #expect(try await roles.families.family(id: "f1")?.revokedAt != nil)
        #expect(try await roles.sessions.session(id: "a2")?.revokedAt == nil)
        #expect(try await roles.families.family(id: "f2")?.revokedAt == nil)
        #expect(try await roles.sessions.session(id: "b1")?.revokedAt == nil)

        // No SessionIndex: every live session of the subject; a second call finds nothing left.
        #expect(try await roles.sessions.endSessions(subject: "alice", upstreamSessionKeys: nil, at: now) == ["a2"])
        #expect(try await roles.families.family(id: "f2")?.revokedAt != nil)
        #expect(try await roles.sessions.endSessions(subject: "alice", upstreamSessionKeys: [], at: now).isEmpty)
        #expect(try await roles.sessions.endSessions(subject: "nobody", upstreamSessionKeys: nil, at: now).isEmpty)
        #expect(try await roles.sessions.session(id: "b1")?.revokedAt == nil)
    }

    static func endSessionsByUpstreamKey(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.sessions.insertSession(samlSession("k1", subject: "alice", upstream: "op sid-1"))
        try await roles.sessions.insertSession(samlSession("k2", subject: "bob", upstream: "op sid-1"))
        try await roles.sessions.insertSession(samlSession("k3", subject: "alice", upstream: "op sid-2"))
        try await roles.sessions.insertSession(samlSession("k4", subject: "alice", upstream: nil))
        try await roles.sessions.insertSession(samlSession("k5", subject: "carol", upstream: "op sid-1", expires: -10))
        try await roles.families.insertFamily(StoreFixtures.family("g1", session: "k1", refresh: "r1"))
        try await roles.families.insertFamily(StoreFixtures.family("g3", session: "k3", refresh: "r3"))

        #expect(try await roles.sessions.endSessions(upstreamSessionKey: "op sid-1", at: now) == ["k1", "k2"])
        #expect(try await roles.sessions.session(id: "k1")?.revokedAt != nil)
        #expect(try await roles.sessions.session(id: "k1")?.sealedUpstream == nil)
        #expect(try await roles.families.family(id: "g1")?.revokedAt != nil)
        #expect(try await roles.sessions.session(id: "k3")?.revokedAt == nil)
        #expect(try await roles.families.family(id: "g3")?.revokedAt == nil)
        #expect(try await roles.sessions.session(id: "k4")?.revokedAt == nil, "a session without a key is never matched")
        #expect(try await roles.sessions.session(id: "k5")?.revokedAt == nil, "an expired one is left as it is")
        #expect(try await roles.sessions.endSessions(upstreamSessionKey: "op sid-1", at: now).isEmpty)
        // Keys are data, never SQL.
        #expect(try await roles.sessions.endSessions(upstreamSessionKey: "' OR '1'='1", at: now).isEmpty)
        #expect(try await roles.sessions.session(id: "k3")?.revokedAt == nil)
    }

    static func lastUse(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.sessions.insertSession(StoreFixtures.session("s1"))
        #expect(try await roles.sessions.session(id: "s1")?.lastUsedAt == nil)
        let issued = now.addingTimeInterval(5)
        try await roles.families.insertFamily(TokenFamily(id: "f1", sessionId: "s1", clientId: "kid", scope: "openid", nonce: nil,
                                                          createdAt: issued, refreshHash: "r1", refreshExpiresAt: now.addingTimeInterval(600)))
        #expect(try await roles.sessions.session(id: "s1")?.lastUsedAt == issued)
        let refreshed = now.addingTimeInterval(90)
        #expect(try await roles.families.rotateRefresh(familyId: "f1", from: "r1", to: "r2", expiresAt: now.addingTimeInterval(900),
                                                       graceResponse: nil, at: refreshed))
        #expect(try await roles.sessions.session(id: "s1")?.lastUsedAt == refreshed)
        #expect(try await !roles.families.rotateRefresh(familyId: "f1", from: "r1", to: "r3", expiresAt: now.addingTimeInterval(900),
                                                        graceResponse: nil, at: now.addingTimeInterval(200)))
        #expect(try await roles.sessions.session(id: "s1")?.lastUsedAt == refreshed)
    }

    static func dpopBinding(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        try await roles.sessions.insertSession(StoreFixtures.session("s1"))
        var bound = StoreFixtures.family("f1", session: "s1", refresh: "r1")
        bound.dpopJkt = jkt
        try await roles.families.insertFamily(bound)
        try await roles.families.insertFamily(StoreFixtures.family("f2", session: "s1", refresh: "r2"))
        #expect(try await roles.families.family(id: "f1")?.dpopJkt == jkt)
        #expect(try await roles.families.family(id: "f2")?.dpopJkt == nil)
        #expect(try await roles.families.rotateRefresh(familyId: "f1", from: "r1", to: "r1b", expiresAt: now.addingTimeInterval(900),
                                                       graceResponse: nil, at: now))
        #expect(try await roles.families.family(refreshHash: "r1b")?.0.dpopJkt == jkt)
        #expect(try await roles.families.family(refreshHash: "r1")?.0.dpopJkt == jkt)
        #expect(try await roles.accessTokens.accessContext(familyId: "f1", jti: "j1")?.family.dpopJkt == jkt)
    }

    static func accountListing(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        for id in ["s1", "s2", "s3"] { try await roles.sessions.insertSession(StoreFixtures.session(id)) }
        try await roles.sessions.touchSession(id: "s1", at: now.addingTimeInterval(30))
        #expect(try await roles.sessions.session(id: "s1")?.lastUsedAt == now.addingTimeInterval(30))
        for (index, (id, session)) in [("f-late", "s1"), ("f-early", "s2"), ("f-other", "s3"), ("f-gone", "s1")].enumerated() {
            var family = StoreFixtures.family(id, session: session, refresh: "r-\(id)")
            family.createdAt = now.addingTimeInterval(id == "f-late" ? 100 : Double(index))
            try await roles.families.insertFamily(family)
        }
        try await roles.families.revokeFamily(id: "f-gone", at: now)
        #expect(try await roles.families.unrevokedFamilies(sessionIds: ["s1", "s2"]).map(\.id) == ["f-early", "f-late"])
        #expect(try await roles.families.unrevokedFamilies(sessionIds: []).isEmpty)
        #expect(try await roles.families.unrevokedFamilies(sessionIds: ["none"]).isEmpty)
    }
}
