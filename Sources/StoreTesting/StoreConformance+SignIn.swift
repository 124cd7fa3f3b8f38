import Foundation
import StoreContracts
import Testing

/// Finishing a sign-in is one write (`completeSignIn`: the pending authorization goes, the session
/// and its first code arrive; `startSession`: the session and its first family) — all of it or
/// none of it, once per pending authorization, with the throttle's reset of the correct password
/// riding in it.
extension StoreConformance {
    static func completesOnce(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        try await roles.pending.insertPending(StoreFixtures.pending(), idHash: "p1")
        let session = StoreFixtures.session("s1")
        #expect(try await roles.sessions.completeSignIn(session: session, code: StoreFixtures.code("c1", session: "s1"), consumingPending: "p1"))
        #expect(try await roles.pending.pending(idHash: "p1") == nil)
        #expect(try await roles.sessions.session(id: "s1") == session)
        #expect(try await roles.codes.redeemCode(hash: "c1", at: now, familyId: "f1") == .redeemed(StoreFixtures.code("c1", session: "s1")))

        // The pending authorization is gone: nothing of the second completion may be stored.
        #expect(try await !roles.sessions.completeSignIn(session: StoreFixtures.session("s2"), code: StoreFixtures.code("c2", session: "s2"),
                                                         consumingPending: "p1"))
        #expect(try await roles.sessions.session(id: "s2") == nil)
        #expect(try await roles.codes.redeemCode(hash: "c2", at: now, familyId: "f2") == .notFound)

        // Already consumed elsewhere (an upstream callback): session and code only.
        #expect(try await roles.sessions.completeSignIn(session: StoreFixtures.session("s3"), code: StoreFixtures.code("c3", session: "s3"),
                                                        consumingPending: nil))
        #expect(try await roles.sessions.session(id: "s3")?.id == "s3")
        #expect(try await roles.codes.redeemCode(hash: "c3", at: now, familyId: "f3") == .redeemed(StoreFixtures.code("c3", session: "s3")))
    }

    static func completionIsAtomic(_ roles: StoreRoles) async throws {
        try await roles.pending.insertPending(StoreFixtures.pending(), idHash: "p1")
        try await roles.codes.insertCode(StoreFixtures.code("taken", session: "other"))
        // The code hash collides: the whole completion fails, so the person can try again.
        await #expect(throws: (any Error).self) {
            try await roles.sessions.completeSignIn(session: StoreFixtures.session("s1"), code: StoreFixtures.code("taken", session: "s1"),
                                                    consumingPending: "p1")
        }
        #expect(try await roles.pending.pending(idHash: "p1") != nil)
        #expect(try await roles.sessions.session(id: "s1") == nil)
    }

    static func concurrentCompletions(_ roles: StoreRoles) async throws {
        try await roles.pending.insertPending(StoreFixtures.pending(), idHash: "p1")
        let sessions = roles.sessions
        let winners: [String] = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await sessions.completeSignIn(session: StoreFixtures.session("s\(index)"),
                                                      code: StoreFixtures.code("c\(index)", session: "s\(index)"),
                                                      consumingPending: "p1") ? "s\(index)" : nil
                }
            }
            return try await group.reduce(into: []) { if let id = $1 { $0.append(id) } }
        }
        #expect(winners.count == 1)
        for index in 0..<20 {
            let stored = try await roles.sessions.session(id: "s\(index)") != nil
            #expect(stored == winners.contains("s\(index)"))
        }
    }

    static func completionResetsThrottle(_ roles: StoreRoles) async throws {
        let (user, address) = try await exhausted(roles.throttle, "reset")
        try await roles.pending.insertPending(StoreFixtures.pending(), idHash: "p1")
        #expect(try await roles.sessions.completeSignIn(session: StoreFixtures.session("s1"), code: StoreFixtures.code("c1", session: "s1"),
                                                        consumingPending: "p1", throttleReset: correctPassword(user, address)))
        #expect(try await roles.sessions.session(id: "s1") != nil)
        try await expectReset(roles.throttle, user: user, address: address)

        // The pending authorization is gone (another request completed it): nothing is stored,
        // but the reset is done all the same.
        let (other, otherAddress) = try await exhausted(roles.throttle, "reset-2")
        #expect(try await !roles.sessions.completeSignIn(session: StoreFixtures.session("s2"), code: StoreFixtures.code("c2", session: "s2"),
                                                         consumingPending: "p1", throttleReset: correctPassword(other, otherAddress)))
        #expect(try await roles.sessions.session(id: "s2") == nil)
        try await expectReset(roles.throttle, user: other, address: otherAddress)
    }

    static func failedCompletionKeepsThrottle(_ roles: StoreRoles) async throws {
        let (user, address) = try await exhausted(roles.throttle, "failed")
        try await roles.pending.insertPending(StoreFixtures.pending(), idHash: "p1")
        try await roles.codes.insertCode(StoreFixtures.code("taken", session: "other"))
        await #expect(throws: (any Error).self) {
            try await roles.sessions.completeSignIn(session: StoreFixtures.session("s1"), code: StoreFixtures.code("taken", session: "s1"),
                                                    consumingPending: "p1", throttleReset: correctPassword(user, address))
        }
        // Rolled back with the rest: the caller settles the reset in a write of its own.
        try await expectUnchanged(roles.throttle, user: user, address: address)
        #expect(try await roles.pending.pending(idHash: "p1") != nil)
    }

    /// A session whose absolute end (`maxExpiresAt`) falls between its own end and its family's
    /// refresh expiry, so the extension is visibly capped.
    static func cappedSession(_ id: String) -> LoginSession {
        var session = StoreFixtures.session(id, expires: 600)
        session.maxExpiresAt = StoreFixtures.now.addingTimeInterval(5000)
        return session
    }

    static func startSessionWritesBoth(_ roles: StoreRoles) async throws {
        try await roles.sessions.insertSession(cappedSession("two"))
        try await roles.families.insertFamily(StoreFixtures.family("f-two", session: "two", refresh: "r-two"))
        try await roles.sessions.startSession(cappedSession("one"), family: StoreFixtures.family("f-one", session: "one", refresh: "r-one"),
                                              throttleReset: nil)

        let two = try #require(try await roles.sessions.session(id: "two")), one = try #require(try await roles.sessions.session(id: "one"))
        #expect(one.expiresAt == StoreFixtures.now.addingTimeInterval(5000))
        #expect(one.lastUsedAt == StoreFixtures.now)
        var renamed = one
        renamed.id = "two"
        renamed.subject = two.subject
        #expect(renamed == two)
        #expect(try await roles.families.family(id: "f-one")?.sessionId == "one")
        let (found, match) = try #require(try await roles.families.family(refreshHash: "r-one"))
        #expect(found.id == "f-one" && match == .current)

        // Without a refresh token the session is stored as it is.
        try await roles.sessions.startSession(cappedSession("online"),
                                              family: StoreFixtures.family("f-online", session: "online", refresh: nil), throttleReset: nil)
        #expect(try await roles.sessions.session(id: "online") == cappedSession("online"))
        #expect(try await roles.families.family(id: "f-online") != nil)
    }

    static func startSessionResetsThrottle(_ roles: StoreRoles) async throws {
        let (user, address) = try await exhausted(roles.throttle, "start")
        try await roles.sessions.startSession(cappedSession("s1"), family: StoreFixtures.family("f1", session: "s1", refresh: "r1"),
                                              throttleReset: correctPassword(user, address))
        try await expectReset(roles.throttle, user: user, address: address)
    }

    static func startSessionIsAtomic(_ roles: StoreRoles) async throws {
        let (user, address) = try await exhausted(roles.throttle, "nothing")
        try await roles.sessions.startSession(cappedSession("first"), family: StoreFixtures.family("taken", session: "first", refresh: "r1"),
                                              throttleReset: nil)
        await #expect(throws: (any Error).self) {
            try await roles.sessions.startSession(cappedSession("second"),
                                                  family: StoreFixtures.family("taken", session: "second", refresh: "r2"),
                                                  throttleReset: correctPassword(user, address))
        }
        #expect(try await roles.sessions.session(id: "second") == nil)
        #expect(try await roles.families.family(refreshHash: "r2")?.0.id == nil)
        try await expectUnchanged(roles.throttle, user: user, address: address)
    }
}

/// The throttle as a correct password finds it: one earlier failure, and this attempt's places.
extension StoreConformance {
    /// The rules of a username (limit 2) and an address (limit 3) named after `name`, after one
    /// failed attempt under both and one that holds its places (the correct password, reserved at
    /// `now`): the user has no place left.
    static func exhausted(_ throttle: any ThrottleStore, _ name: String) async throws -> (user: ThrottleRule, address: ThrottleRule) {
        let (user, address) = (StoreFixtures.rule("\(name)-user", limit: 2), StoreFixtures.rule("\(name)-address", limit: 3))
        let (earlier, now) = (StoreFixtures.now.addingTimeInterval(-1), StoreFixtures.now)
        #expect(try await throttle.throttleReserve([address, user], at: earlier) == .reserved)
        try await throttle.throttleFailed([address, user], reservedAt: earlier, at: earlier)
        #expect(try await throttle.throttleReserve([address, user], at: now) == .reserved)
        #expect(try await throttle.throttleReserve([user], at: now) == .busy(keyHash: user.keyHash))
        return (user, address)
    }

    /// The correct password's reset of `exhausted`'s second attempt.
    static func correctPassword(_ user: ThrottleRule, _ address: ThrottleRule) -> ThrottleReset {
        ThrottleReset(reset: user.keyHash, release: address.keyHash, reservedAt: StoreFixtures.now)
    }

    /// After the reset: the user's failure cleared and place given back (both places free); the
    /// address's place given back, its failure kept (two of three places free).
    static func expectReset(_ throttle: any ThrottleStore, user: ThrottleRule, address: ThrottleRule) async throws {
        #expect(try await StoreFixtures.places(throttle, user) == 2)
        #expect(try await StoreFixtures.places(throttle, address) == 2)
    }

    /// Without the reset: the user still busy, the address with one failure and one place held.
    static func expectUnchanged(_ throttle: any ThrottleStore, user: ThrottleRule, address: ThrottleRule) async throws {
        #expect(try await StoreFixtures.places(throttle, user) == 0)
        #expect(try await StoreFixtures.places(throttle, address) == 1)
    }
}
