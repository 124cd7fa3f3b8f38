import Foundation
import StoreContracts
import Testing

/// Throttle counters (docs/security.md, rules 6 and 13): rate limits count every request up to
/// their limit; the login throttle counts failures only, holds a place for each attempt in flight,
/// and decides concurrent attempts one at a time; housekeeping caps the rows without letting a
/// guesser go.
extension StoreConformance {
    static func rateLimit(_ roles: StoreRoles) async throws {
        let (rule, now) = (StoreFixtures.rule("rate", limit: 2), StoreFixtures.now)
        #expect(try await roles.throttle.throttleAttempt(rule, at: now))
        #expect(try await roles.throttle.throttleAttempt(rule, at: now))
        #expect(try await !roles.throttle.throttleAttempt(rule, at: now))
        #expect(try await roles.throttle.throttleAttempt(rule, at: now.addingTimeInterval(61)))
        #expect(try await !roles.throttle.throttleAttempt(rule, at: now.addingTimeInterval(61)))
        // Once the window is over, the limit is there again.
        #expect(try await roles.throttle.throttleAttempt(rule, at: now.addingTimeInterval(400)))
        #expect(try await roles.throttle.throttleAttempt(rule, at: now.addingTimeInterval(400)))
        #expect(try await !roles.throttle.throttleAttempt(rule, at: now.addingTimeInterval(400)))
    }

    static func reservations(_ roles: StoreRoles) async throws {
        let (throttle, now) = (roles.throttle, StoreFixtures.now)
        let user = StoreFixtures.rule("reserving-user", limit: 2)
        // Two in flight: the third waits (busy), and gets in as soon as one succeeds.
        #expect(try await throttle.throttleReserve([user], at: now) == .reserved)
        #expect(try await throttle.throttleReserve([user], at: now) == .reserved)
        #expect(try await throttle.throttleReserve([user], at: now) == .busy(keyHash: user.keyHash))
        for _ in 0..<10 {
            try await throttle.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: now))
            #expect(try await throttle.throttleReserve([user], at: now) == .reserved)
        }
        try await throttle.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: now))
        try await throttle.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: now))
        // Two failures lock the key until 60 s after the last one.
        for second in [1.0, 2.0] {
            let at = now.addingTimeInterval(second)
            #expect(try await throttle.throttleReserve([user], at: at) == .reserved)
            try await throttle.throttleFailed([user], reservedAt: at, at: at)
        }
        let locked = ThrottleDecision.locked(keyHash: user.keyHash, until: now.addingTimeInterval(62))
        #expect(try await throttle.throttleReserve([user], at: now.addingTimeInterval(3)) == locked)
        // Past the spacing one attempt goes ahead, and the next waits for its outcome.
        let later = now.addingTimeInterval(62)
        #expect(try await throttle.throttleReserve([user], at: later) == .reserved)
        #expect(try await throttle.throttleReserve([user], at: later) == .busy(keyHash: user.keyHash))
        try await throttle.throttleFailed([user], reservedAt: later, at: later)
        #expect(try await throttle.throttleReserve([user], at: later) == .locked(keyHash: user.keyHash, until: later.addingTimeInterval(60)))
        // A success in the spacing's place clears the failures.
        let again = later.addingTimeInterval(60)
        #expect(try await throttle.throttleReserve([user], at: again) == .reserved)
        try await throttle.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: again))
        #expect(try await StoreFixtures.places(throttle, user, at: again) == 2)
    }

    static func reservationRules(_ roles: StoreRoles) async throws {
        let (throttle, now) = (roles.throttle, StoreFixtures.now)
        let address = StoreFixtures.rule("address", limit: 3), user = StoreFixtures.rule("user", limit: 1)
        #expect(try await throttle.throttleReserve([address, user], at: now) == .reserved)
        // The user has no place left: refused, and the address's place given back.
        #expect(try await throttle.throttleReserve([address, user], at: now) == .busy(keyHash: user.keyHash))
        try await throttle.throttleFailed([address, user], reservedAt: now, at: now)
        #expect(try await throttle.throttleReserve([address, user], at: now) != .reserved)
        // Failure 1 of 3 on the address: two places left there.
        #expect(try await StoreFixtures.places(throttle, address) == 2)
        try await throttle.throttleSucceeded(ThrottleReset(reset: nil, release: address.keyHash, reservedAt: now))
        try await throttle.throttleSucceeded(ThrottleReset(reset: nil, release: address.keyHash, reservedAt: now))
        #expect(try await StoreFixtures.places(throttle, address) == 2)
        #expect(try await throttle.throttleReserve([], at: now) == .reserved)
    }

    static func reservationHold(_ roles: StoreRoles) async throws {
        let (throttle, now) = (roles.throttle, StoreFixtures.now)
        let user = StoreFixtures.rule("held-user", limit: 2)
        // An attempt whose instance stopped (never settled), then one settled 30 s later.
        #expect(try await throttle.throttleReserve([user], at: now) == .reserved)
        let second = now.addingTimeInterval(30)
        #expect(try await throttle.throttleReserve([user], at: second) == .reserved)
        try await throttle.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: second))
        #expect(try await StoreFixtures.places(throttle, user, at: second.addingTimeInterval(1)) == 1)
        try await throttle.throttleSucceeded(ThrottleReset(reset: user.keyHash, release: nil, reservedAt: second.addingTimeInterval(1)))
        // Past the first one's hold (60 s), both places are free again.
        #expect(try await StoreFixtures.places(throttle, user, at: now.addingTimeInterval(61)) == 2)
    }

    static func concurrentReservations(_ roles: StoreRoles) async throws {
        let (throttle, now) = (roles.throttle, StoreFixtures.now)
        let address = StoreFixtures.rule("busy-address", limit: 100), user = StoreFixtures.rule("busy-user", limit: 5)
        let decisions = try await withThrowingTaskGroup(of: ThrottleDecision.self) { group in
            for _ in 0..<20 { group.addTask { try await throttle.throttleReserve([address, user], at: now) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(decisions.filter { $0 == .reserved }.count == 5)
        #expect(decisions.filter { $0 == .busy(keyHash: user.keyHash) }.count == 15)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await throttle.throttleFailed([address, user], reservedAt: now, at: now) } }
            try await group.waitForAll()
        }
        #expect(try await throttle.throttleReserve([address, user], at: now)
                == .locked(keyHash: user.keyHash, until: now.addingTimeInterval(60)))
        // The address counted five failures and holds no place.
        #expect(try await StoreFixtures.places(throttle, address) == 20)
    }

    static func throttleCap(_ roles: StoreRoles) async throws {
        let (throttle, now) = (roles.throttle, StoreFixtures.now)
        let guesser = StoreFixtures.rule("guessed-user", limit: 5)
        for _ in 0..<5 { #expect(try await throttle.throttleAttempt(guesser, at: now)) }
        // Twenty newer keys, one request each, one allowed per key.
        let junk = (0..<20).map { StoreFixtures.rule("junk-\($0)", limit: 1) }
        for (index, rule) in junk.enumerated() { #expect(try await throttle.throttleAttempt(rule, at: now.addingTimeInterval(Double(index)))) }
        try await throttle.capThrottle(maxRows: 8)
        let moment = now.addingTimeInterval(30)
        #expect(try await !throttle.throttleAttempt(guesser, at: moment), "the guesser's counter is kept")
        #expect(try await !throttle.throttleAttempt(junk[19], at: moment), "the newest keys are kept")
        #expect(try await !throttle.throttleAttempt(junk[13], at: moment))
        #expect(try await throttle.throttleAttempt(junk[12], at: moment), "older keys are forgotten")
        #expect(try await throttle.throttleAttempt(junk[0], at: moment))
    }
}
