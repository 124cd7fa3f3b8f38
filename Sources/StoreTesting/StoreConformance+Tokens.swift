import Foundation
import StoreContracts
import Testing

/// What validation reads (access contexts, opaque tokens, single revocations) and when its cache
/// must forget (`accessContextChanges`); signing keys; many lookups at once.
extension StoreConformance {
    static func tokensAndKeys(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let token = OpaqueAccessToken(hash: "t1", jti: "j1", familyId: "f1", clientId: "kid", scope: "", issuedAt: now,
                                      expiresAt: now.addingTimeInterval(60))
        try await roles.accessTokens.insertOpaqueToken(token)
        #expect(try await roles.accessTokens.opaqueToken(hash: "t1") == token)
        #expect(try await roles.accessTokens.opaqueToken(hash: "t2") == nil)
        #expect(try await !roles.accessTokens.isAccessTokenRevoked(jti: "j1"))
        try await roles.accessTokens.revokeAccessToken(jti: "j1", expiresAt: now.addingTimeInterval(60))
        try await roles.accessTokens.revokeAccessToken(jti: "j1", expiresAt: now.addingTimeInterval(60))
        #expect(try await roles.accessTokens.isAccessTokenRevoked(jti: "j1"))
        let key = StoredSigningKey(kid: "k1", algorithm: "RS256", sealedPrivateKey: Data([1]), createdAt: now)
        let newer = StoredSigningKey(kid: "k0", algorithm: "ES256", sealedPrivateKey: Data([2]), createdAt: now.addingTimeInterval(60))
        try await roles.signingKeys.insertSigningKey(newer)
        try await roles.signingKeys.insertSigningKey(key)
        #expect(try await roles.signingKeys.signingKeys() == [key, newer], "oldest first")
        try await roles.signingKeys.retireSigningKey(kid: "k1", at: now, removeAfter: now.addingTimeInterval(10))
        try await roles.signingKeys.retireSigningKey(kid: "k1", at: now.addingTimeInterval(5), removeAfter: now.addingTimeInterval(20))
        let retired = try #require(try await roles.signingKeys.signingKeys().first)
        #expect(retired.retiredAt == now && retired.removeAfter == now.addingTimeInterval(20), "retired once, removal moved")
    }

    static func accessContext(_ roles: StoreRoles) async throws {
        let session = StoreFixtures.session("s1"), family = StoreFixtures.family("f1", session: "s1", refresh: "r1")
        try await roles.sessions.insertSession(session)
        try await roles.families.insertFamily(family)
        let stored = try #require(try await roles.sessions.session(id: "s1"))
        #expect(try await roles.accessTokens.accessContext(familyId: "f1", jti: "j1")
                == AccessContext(family: family, session: stored, accessTokenRevoked: false))
        try await roles.accessTokens.revokeAccessToken(jti: "j1", expiresAt: StoreFixtures.now.addingTimeInterval(60))
        #expect(try await roles.accessTokens.accessContext(familyId: "f1", jti: "j1")?.accessTokenRevoked == true)
        #expect(try await roles.accessTokens.accessContext(familyId: "f1", jti: "j2")?.accessTokenRevoked == false)
        try await roles.sessions.revokeSession(id: "s1", at: StoreFixtures.now)
        let ended = try #require(try await roles.accessTokens.accessContext(familyId: "f1", jti: "j2"))
        #expect(ended.family.revokedAt == StoreFixtures.now && ended.session.revokedAt == StoreFixtures.now)
        #expect(try await roles.accessTokens.accessContext(familyId: "unknown", jti: "j1") == nil)
        // A family whose session is not stored has no context.
        try await roles.families.insertFamily(StoreFixtures.family("f2", session: "nowhere", refresh: nil))
        #expect(try await roles.accessTokens.accessContext(familyId: "f2", jti: "j1") == nil)
    }

    static func accessContextChanges(_ roles: StoreRoles) async throws {
        let (now, sessions, families, tokens) = (StoreFixtures.now, roles.sessions, roles.families, roles.accessTokens)
        try await sessions.insertSession(StoreFixtures.session("s1"))
        try await sessions.insertSession(StoreFixtures.session("s2"))
        try await families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        try await families.insertFamily(StoreFixtures.family("f2", session: "s2", refresh: "r2"))
        let changing: [(String, @Sendable () async throws -> Void)] = [
            ("revokeAccessToken", { try await tokens.revokeAccessToken(jti: "j1", expiresAt: now) }),
            ("updateUpstream", { _ = try await sessions.updateUpstream(sessionId: "s1", sealedUpstream: nil, upstreamExpiresAt: nil,
                                                                       attributes: nil, expectedVersion: 0) }),
            ("revokeFamily", { try await families.revokeFamily(id: "f1", at: now) }),
            ("revokeFamilies", { _ = try await families.revokeFamilies(clientId: "kid", at: now) }),
            ("endSessionIfUnused", { _ = try await families.endSessionIfUnused(id: "s1", at: now, issuedAfter: now) }),
            ("endSessions", { _ = try await sessions.endSessions(subject: "sub-s2", upstreamSessionKeys: nil, at: now) }),
            ("endSessions by upstream key", { _ = try await sessions.endSessions(upstreamSessionKey: "no such key", at: now) }),
            ("revokeSession", { try await sessions.revokeSession(id: "s2", at: now) }),
        ]
        for (name, write) in changing {
            let before = tokens.accessContextChanges
            try await write()
            #expect(tokens.accessContextChanges == before + 1, "\(name) counts once")
        }
        let before = tokens.accessContextChanges
        try await sessions.insertSession(StoreFixtures.session("s3"))
        try await families.insertFamily(StoreFixtures.family("f3", session: "s3", refresh: "r3"))
        _ = try await families.rotateRefresh(familyId: "f3", from: "r3", to: "r4", expiresAt: now.addingTimeInterval(60),
                                             graceResponse: nil, at: now)
        try await sessions.touchSession(id: "s3", at: now)
        try await roles.accessTokens.insertOpaqueToken(OpaqueAccessToken(hash: "t", jti: "j", familyId: "f3", clientId: "kid", scope: "",
                                                                         issuedAt: now, expiresAt: now))
        #expect(tokens.accessContextChanges == before, "new rows and rotations change no context read before them")
    }

    /// The SQLite backend once read on the caller's thread from the same connection pool its
    /// async readers use, and deadlocked under load: every cooperative thread waited for a
    /// connection held by a suspended reader that needed one of them to resume.
    static func mixedLoad(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        for index in 0..<20 {
            try await roles.sessions.insertSession(StoreFixtures.session("s\(index)"))
            try await roles.families.insertFamily(StoreFixtures.family("f\(index)", session: "s\(index)", refresh: "r\(index)"))
        }
        // A hang here would hang the whole test run; fail it loudly instead. Generous: the whole
        // suite runs at once on two cores, and on a loaded machine 2,000 lookups took over a minute.
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if finished.wait(timeout: .now() + 240) == .timedOut {
                fatalError("Store under concurrent load: lookups did not finish within 240 s (deadlock)")
            }
        }
        defer { finished.signal() }
        let (tokens, sessions, families) = (roles.accessTokens, roles.sessions, roles.families)
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<2_000 {
                let key = index % 20
                group.addTask {
                    switch index % 4 {
                    case 0: return try await tokens.accessContext(familyId: "f\(key)", jti: "j\(index)") != nil
                    case 1: return try await sessions.session(id: "s\(key)") != nil
                    case 2: return try await families.family(refreshHash: "r\(key)") != nil
                    default:
                        try await tokens.revokeAccessToken(jti: "j\(index)", expiresAt: now.addingTimeInterval(60))
                        return true
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(found == 2_000)
    }
}
