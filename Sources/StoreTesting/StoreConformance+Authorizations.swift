import Foundation
import StoreContracts
import Testing

/// Pending authorizations and authorization codes: consumed and redeemed exactly once.
extension StoreConformance {
    static func pendingAuthorizations(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let pending = PendingAuthorization(clientId: "kid", appKey: "kid", authServiceId: "svc", redirectURI: "https://a/cb",
                                           scope: "openid", state: "s", nonce: nil, codeChallenge: "c", mode: .browser,
                                           browserHash: "h", createdAt: now, expiresAt: now.addingTimeInterval(60))
        try await roles.pending.insertPending(pending, idHash: "p1")
        #expect(try await roles.pending.pending(idHash: "p1") == pending)
        var updated = pending
        updated.failedAttempts = 2
        updated.lastError = "wrong"
        try await roles.pending.updatePending(updated, idHash: "p1")
        #expect(try await roles.pending.pending(idHash: "p1")?.lastError == "wrong")
        #expect(try await roles.pending.consumePending(idHash: "p1"))
        #expect(try await !roles.pending.consumePending(idHash: "p1"))
        #expect(try await roles.pending.pending(idHash: "p1") == nil)
        // Gone stays gone: an update does not bring it back.
        try await roles.pending.updatePending(updated, idHash: "p1")
        #expect(try await roles.pending.pending(idHash: "p1") == nil)
    }

    static func concurrentRedemptions(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let code = AuthorizationCode(hash: "c1", clientId: "kid", redirectURI: "https://a/cb", scope: "", nonce: nil,
                                     codeChallenge: nil, sessionId: "s1", createdAt: now, expiresAt: now.addingTimeInterval(60))
        try await roles.codes.insertCode(code)
        let codes = roles.codes
        let results = try await withThrowingTaskGroup(of: CodeRedemption.self) { group in
            for index in 0..<50 { group.addTask { try await codes.redeemCode(hash: "c1", at: now, familyId: "f\(index)") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = results.compactMap { if case .redeemed(let c) = $0 { c } else { nil } }
        #expect(winners == [code])
        let families = Set(results.compactMap { if case .alreadyUsed(_, let f) = $0 { f } else { nil } })
        #expect(families.count == 1)
        #expect(try await roles.codes.redeemCode(hash: "nope", at: now, familyId: "x") == .notFound)
    }

    static func codeLookup(_ roles: StoreRoles) async throws {
        var code = StoreFixtures.code("c1", session: "s1")
        code.resources = ["https://api.example.org"]
        code.claims = ClaimsRequest(idToken: ["email"], userinfo: ["name"])
        code.online = true
        try await roles.codes.insertCode(code)
        #expect(try await roles.codes.code(hash: "c1") == code)
        #expect(try await roles.codes.code(hash: "c1") == code, "reading it twice does not use it")
        #expect(try await roles.codes.redeemCode(hash: "c1", at: StoreFixtures.now, familyId: "f1") == .redeemed(code))
        #expect(try await roles.codes.code(hash: "c1") == code, "a used code still reads back")
        #expect(try await roles.codes.code(hash: "unknown") == nil)
    }

    static func redemptionStartsFamily(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.sessions.insertSession(StoreFixtures.session("s1", expires: 60))
        try await roles.codes.insertCode(StoreFixtures.code("c1", session: "s1"))

        let family = StoreFixtures.family("f1", session: "s1", refresh: "r1")
        #expect(try await roles.codes.redeemCode(hash: "c1", at: now, starting: family) == .redeemed(StoreFixtures.code("c1", session: "s1")))
        #expect(try await roles.families.family(id: "f1") == family)
        #expect(try await roles.families.family(refreshHash: "r1")?.0.id == "f1")
        // As `insertFamily` does: the session lives as long as its new refresh token.
        #expect(try await roles.sessions.session(id: "s1")?.expiresAt == family.refreshExpiresAt)

        // Used: the second family is not stored, and the first one is named as the code's.
        let replay = StoreFixtures.family("f2", session: "s1", refresh: "r2")
        guard case .alreadyUsed(_, let issued) = try await roles.codes.redeemCode(hash: "c1", at: now, starting: replay) else {
            Issue.record("a used code must be reported as used")
            return
        }
        #expect(issued == "f1")
        #expect(try await roles.families.family(id: "f2") == nil)
        #expect(try await roles.families.family(refreshHash: "r2") == nil)

        #expect(try await roles.codes.redeemCode(hash: "unknown", at: now,
                                                 starting: StoreFixtures.family("f3", session: "s1", refresh: nil)) == .notFound)
        #expect(try await roles.families.family(id: "f3") == nil)
    }

    static func concurrentRedemptionsStartingFamilies(_ roles: StoreRoles) async throws {
        try await roles.sessions.insertSession(StoreFixtures.session("s1"))
        try await roles.codes.insertCode(StoreFixtures.code("c1", session: "s1"))
        let codes = roles.codes
        let results = try await withThrowingTaskGroup(of: CodeRedemption.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await codes.redeemCode(hash: "c1", at: StoreFixtures.now,
                                               starting: StoreFixtures.family("f\(index)", session: "s1", refresh: "r\(index)"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { if case .redeemed = $0 { true } else { false } }.count == 1)
        let named = Set(results.compactMap { if case .alreadyUsed(_, let family) = $0 { family } else { nil } })
        #expect(named.count == 1)
        var stored: [String] = []
        for index in 0..<20 where try await roles.families.family(id: "f\(index)") != nil { stored.append("f\(index)") }
        #expect(stored.count == 1)
        #expect(named == Set(stored))
    }
}
