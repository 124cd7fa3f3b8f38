import Foundation
import StoreContracts
import Testing

/// What holds for every table: keys are unique, sealed values can be re-sealed page by page, and
/// housekeeping removes what expired and keeps what is live.
extension StoreConformance {
    static func takenKeys(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.sessions.insertSession(StoreFixtures.session("s1"))
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        try await roles.pending.insertPending(StoreFixtures.pending(), idHash: "p1")
        try await roles.codes.insertCode(StoreFixtures.code("c1", session: "s1"))
        let token = OpaqueAccessToken(hash: "t1", jti: "j1", familyId: "f1", clientId: "kid", scope: "", issuedAt: now, expiresAt: now)
        try await roles.accessTokens.insertOpaqueToken(token)
        try await roles.signingKeys.insertSigningKey(StoredSigningKey(kid: "k1", algorithm: "RS256", sealedPrivateKey: Data([1]), createdAt: now))
        try await roles.registeredClients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~1"))
        try await roles.oneTimeGrants.insertOneTimeGrant(hash: "g1", sealed: Data([1]), expiresAt: now.addingTimeInterval(60))
        try await roles.qrLogins.insertQRLogin(StoreFixtures.qrLogin("q1"))

        var other = StoreFixtures.session("s1")
        other.userId = "mallory"
        await #expect(throws: (any Error).self) { try await roles.sessions.insertSession(other) }
        await #expect(throws: (any Error).self) {
            try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r-other"))
        }
        await #expect(throws: (any Error).self, "a refresh token hash is one family's") {
            try await roles.families.insertFamily(StoreFixtures.family("f2", session: "s1", refresh: "r1"))
        }
        await #expect(throws: (any Error).self) { try await roles.pending.insertPending(StoreFixtures.pending(), idHash: "p1") }
        await #expect(throws: (any Error).self) { try await roles.codes.insertCode(StoreFixtures.code("c1", session: "other")) }
        var otherToken = token
        otherToken.jti = "j2"
        await #expect(throws: (any Error).self) { try await roles.accessTokens.insertOpaqueToken(otherToken) }
        await #expect(throws: (any Error).self) {
            try await roles.signingKeys.insertSigningKey(StoredSigningKey(kid: "k1", algorithm: "ES256", sealedPrivateKey: Data([2]),
                                                                          createdAt: now))
        }
        await #expect(throws: (any Error).self) {
            try await roles.registeredClients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~1", appKey: "other"))
        }
        await #expect(throws: (any Error).self) {
            try await roles.oneTimeGrants.insertOneTimeGrant(hash: "g1", sealed: Data([2]), expiresAt: now.addingTimeInterval(60))
        }
        await #expect(throws: (any Error).self) { try await roles.qrLogins.insertQRLogin(StoreFixtures.qrLogin("q1", expiresIn: 5)) }

        #expect(try await roles.sessions.session(id: "s1")?.userId == "alice")
        #expect(try await roles.families.family(refreshHash: "r1")?.0.id == "f1")
        #expect(try await roles.families.family(id: "f2") == nil)
        #expect(try await roles.accessTokens.opaqueToken(hash: "t1") == token)
        #expect(try await roles.signingKeys.signingKeys().map(\.algorithm) == ["RS256"])
        #expect(try await roles.registeredClients.registeredClient(id: "dyn~CSI~1")?.appKey == "kid")
        #expect(try await roles.oneTimeGrants.takeOneTimeGrant(hash: "g1")?.sealed == Data([1]))
        #expect(try await roles.qrLogins.qrLogin(codeHash: "q1") == StoreFixtures.qrLogin("q1"))
    }

    static func sealedValues(_ roles: StoreRoles) async throws {
        for index in 0..<5 { try await roles.sessions.insertSession(StoreFixtures.session("s\(index)")) }
        let first = try await roles.sealed.sealedValues(.sessionUpstream, after: nil, limit: 3)
        #expect(first.map(\.id) == ["s0", "s1", "s2"] && first.allSatisfy { $0.scope == "svc" && $0.data == Data([1, 2, 3]) })
        let rest = try await roles.sealed.sealedValues(.sessionUpstream, after: "s2", limit: 3)
        #expect(rest.map(\.id) == ["s3", "s4"])
        #expect(try await roles.sealed.replaceSealed(first[0], with: Data([4])))
        #expect(try await !roles.sealed.replaceSealed(first[0], with: Data([5])))
        #expect(try await roles.sessions.session(id: "s0")?.sealedUpstream == Data([4]))
        // A session whose upstream token is gone has nothing to re-seal.
        try await roles.sessions.revokeSession(id: "s4", at: StoreFixtures.now)
        #expect(try await roles.sealed.sealedValues(.sessionUpstream, after: "s2", limit: 3).map(\.id) == ["s3"])
        try await roles.signingKeys.insertSigningKey(StoredSigningKey(kid: "k1", algorithm: "RS256", sealedPrivateKey: Data([1]),
                                                                      createdAt: StoreFixtures.now))
        #expect(try await roles.sealed.sealedValues(.signingKey, after: nil, limit: 10).map(\.id) == ["k1"])
        #expect(try await roles.sealed.sealedValues(.refreshGrace, after: nil, limit: 10).isEmpty)
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        _ = try await roles.families.rotateRefresh(familyId: "f1", from: "r1", to: "r2", expiresAt: StoreFixtures.now.addingTimeInterval(60),
                                                   graceResponse: Data([8]), at: StoreFixtures.now)
        let grace = try await roles.sealed.sealedValues(.refreshGrace, after: nil, limit: 10)
        #expect(grace.map(\.id) == ["f1"] && grace.first?.scope == "" && grace.first?.data == Data([8]))
        #expect(try await roles.sealed.replaceSealed(try #require(grace.first), with: Data([9])))
        #expect(try await roles.families.family(id: "f1")?.graceResponse == Data([9]))
    }

    static func purge(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.maintenance.ping()
        try await roles.sessions.insertSession(StoreFixtures.session("old", expires: 10))
        try await roles.families.insertFamily(StoreFixtures.family("f-old", session: "old", refresh: nil))
        try await roles.sessions.insertSession(StoreFixtures.session("live", expires: 100_000))
        try await roles.pending.insertPending(PendingAuthorization(clientId: "k", appKey: "k", authServiceId: "s", redirectURI: "r", scope: "",
                                                                   state: nil, nonce: nil, codeChallenge: nil, mode: .api,
                                                                   createdAt: now, expiresAt: now.addingTimeInterval(5)), idHash: "p")
        let removed = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(1000))
        #expect(removed == 3)
        #expect(try await roles.sessions.session(id: "old") == nil)
        #expect(try await roles.families.family(id: "f-old") == nil)
        #expect(try await roles.sessions.session(id: "live") != nil)
    }

    static func purgeCounts(_ roles: StoreRoles) async throws {
        let (now, hour) = (StoreFixtures.now, StoreFixtures.now.addingTimeInterval(3600))
        try await roles.sessions.insertSession(StoreFixtures.session("old", expires: 10))
        var family = StoreFixtures.family("f-old", session: "old", refresh: "r-old")
        family.refreshExpiresAt = now.addingTimeInterval(5)
        try await roles.families.insertFamily(family)
        for (old, new) in [("r-old", "r-old-2"), ("r-old-2", "r-old-3")] {
            _ = try await roles.families.rotateRefresh(familyId: "f-old", from: old, to: new, expiresAt: now.addingTimeInterval(5),
                                                       graceResponse: nil, at: now)
        }
        #expect(try await roles.families.family(refreshHash: "r-old")?.1 == .retired)
        try await roles.codes.insertCode(StoreFixtures.code("c-old", session: "old"))
        try await roles.accessTokens.insertOpaqueToken(OpaqueAccessToken(hash: "t", jti: "j", familyId: "f-old", clientId: "kid", scope: "",
                                                                         issuedAt: now, expiresAt: now.addingTimeInterval(60)))
        try await roles.accessTokens.revokeAccessToken(jti: "j", expiresAt: now.addingTimeInterval(60))
        try await roles.signingKeys.insertSigningKey(StoredSigningKey(kid: "k", algorithm: "RS256", sealedPrivateKey: Data([1]), createdAt: now))
        try await roles.signingKeys.retireSigningKey(kid: "k", at: now, removeAfter: now.addingTimeInterval(60))
        try await roles.qrLogins.insertQRLogin(StoreFixtures.qrLogin("q"))
        #expect(try await roles.leases.acquireRefreshLease(sessionId: "old", holder: "h", until: now.addingTimeInterval(60), now: now))
        try await roles.registeredClients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~1", created: -86_400))

        // An hour on: the session with its family, the opaque token, its revocation and the key (5);
        // the code and the QR sign-in only a day after their expiry.
        #expect(try await roles.maintenance.purgeExpired(before: hour) == 5)
        #expect(try await roles.signingKeys.signingKeys().isEmpty)
        #expect(try await !roles.accessTokens.isAccessTokenRevoked(jti: "j"))
        #expect(try await roles.codes.code(hash: "c-old") != nil)
        #expect(try await roles.families.family(refreshHash: "r-old") == nil, "retired with its family")
        #expect(try await roles.leases.acquireRefreshLease(sessionId: "old", holder: "other", until: hour, now: now), "expired lease gone")
        #expect(try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(86_400 + 200)) == 2)
        #expect(try await roles.codes.code(hash: "c-old") == nil)
        #expect(try await roles.qrLogins.qrLogin(codeHash: "q") == nil)
        #expect(try await roles.registeredClients.registeredClient(id: "dyn~CSI~1") != nil, "instances have a purge of their own")
        #expect(try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(86_400 + 200)) == 0)
    }
}
