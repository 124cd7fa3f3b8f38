import Foundation
import StoreContracts
import Testing

/// The back-channel logout queue (``LogoutNoticeStore``): what ends a session leaves a notice,
/// and instances share the notices through claims.
extension StoreConformance {
    static func logoutNoticesOnSessionEnd(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let notices = roles.logoutNotices
        for id in ["s1", "s2", "s3", "s4"] { try await roles.sessions.insertSession(StoreFixtures.session(id)) }
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        var other = StoreFixtures.family("f1b", session: "s1", refresh: nil)
        other.clientId = "kid.svc"
        try await roles.families.insertFamily(other)
        try await roles.families.insertFamily(StoreFixtures.family("f1c", session: "s1", refresh: nil))
        #expect(try await notices.claimLogoutNotices(holder: "a", until: now.addingTimeInterval(60), now: now, limit: 10).isEmpty,
                "no session ended: nothing to tell")

        try await roles.sessions.revokeSession(id: "s1", at: now)
        try await roles.sessions.revokeSession(id: "s1", at: now.addingTimeInterval(1))  // ended once, one notice
        let later = now.addingTimeInterval(2)
        #expect(try await roles.sessions.endSessions(subject: "sub-s2", upstreamSessionKeys: nil, at: later) == ["s2"])
        #expect(try await roles.families.endSessionIfUnused(id: "s3", at: later, issuedAfter: now))
        let claimed = try await notices.claimLogoutNotices(holder: "a", until: now.addingTimeInterval(60), now: later, limit: 10)
        #expect(claimed.map(\.sessionId) == ["s1", "s2", "s3"], "oldest due first; s4 did not end")
        let first = try #require(claimed.first)
        #expect(first == LogoutNotice(sessionId: "s1", subject: "sub-s1", endedAt: now, attempts: 0, clientIds: ["kid", "kid.svc"],
                                      delivered: []))
        #expect(claimed[1].clientIds.isEmpty, "a session without families has nobody to tell")
        #expect(try await notices.claimLogoutNotices(holder: "b", until: now.addingTimeInterval(90), now: later, limit: 10).isEmpty,
                "claimed by a: nothing for b")
    }

    static func logoutNoticeClaims(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let notices = roles.logoutNotices
        try await roles.sessions.insertSession(StoreFixtures.session("s1"))
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        try await roles.sessions.revokeSession(id: "s1", at: now)
        #expect(try await notices.claimLogoutNotices(holder: "a", until: now.addingTimeInterval(60), now: now, limit: 0).isEmpty)
        #expect(try await notices.claimLogoutNotices(holder: "a", until: now.addingTimeInterval(60), now: now, limit: 1).count == 1)
        // a's claim runs out: b takes the notice over, and a, settling late, changes nothing.
        let taken = try await notices.claimLogoutNotices(holder: "b", until: now.addingTimeInterval(121), now: now.addingTimeInterval(61), limit: 5)
        #expect(taken.map(\.sessionId) == ["s1"])
        try await notices.settleLogoutNotice(sessionId: "s1", holder: "a", delivered: ["kid"], retryAt: nil)
        #expect(try await notices.claimLogoutNotices(holder: "c", until: now.addingTimeInterval(200), now: now.addingTimeInterval(62), limit: 5)
            .isEmpty, "b still holds it: a's late settlement neither removed nor released it")
        // b settles with a retry: due again then, with one attempt more and what was delivered.
        try await notices.settleLogoutNotice(sessionId: "s1", holder: "b", delivered: ["kid"], retryAt: now.addingTimeInterval(100))
        #expect(try await notices.claimLogoutNotices(holder: "c", until: now.addingTimeInterval(200), now: now.addingTimeInterval(99), limit: 5)
            .isEmpty, "not due before its retry")
        let retried = try await notices.claimLogoutNotices(holder: "c", until: now.addingTimeInterval(200), now: now.addingTimeInterval(100),
                                                           limit: 5)
        #expect(retried.map(\.attempts) == [1])
        #expect(retried.map(\.delivered) == [["kid"]])
        // c finishes it: gone for good.
        try await notices.settleLogoutNotice(sessionId: "s1", holder: "c", delivered: ["kid"], retryAt: nil)
        #expect(try await notices.claimLogoutNotices(holder: "d", until: now.addingTimeInterval(9_000), now: now.addingTimeInterval(8_000), limit: 5)
            .isEmpty)
        // Ten instances claiming one notice at once: exactly one gets it.
        try await roles.sessions.insertSession(StoreFixtures.session("s2"))
        try await roles.sessions.revokeSession(id: "s2", at: now)
        let winners = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<10 {
                group.addTask {
                    try await notices.claimLogoutNotices(holder: "h\(index)", until: now.addingTimeInterval(60), now: now, limit: 5).count
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(winners == 1)
    }
}
