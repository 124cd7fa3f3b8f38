import Foundation
import IdentityCore
@testable import OAuthEngine
import StoreContracts
import Synchronization
import Testing

/// The login throttle's own rules (docs/security.md, rule 6) with a manual clock, on every
/// backend: an attempt that finds its places all held by attempts in flight waits for one instead
/// of being refused, and gives up in words after `maxWait`; failures lock with the time left in
/// the answer; nothing waits on after its attempt is decided.
@Suite("Security: the login throttle's waiting and its words")
struct LoginThrottleTests {
    static let keys = LoginThrottle.keys(namespace: "env:kid/users", username: "bob", address: "192.0.2.1")

    static func admitted(_ admission: LoginThrottle.Admission) -> LoginThrottle.Reservation? {
        if case .admitted(let reservation) = admission { return reservation }
        return nil
    }

    @Test("five in flight: the sixth waits for a place and goes ahead once one is settled", arguments: StoreBackend.allCases)
    func waitsForAPlace(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let clock = ManualClock()
        var throttle = LoginThrottle()
        // Only a settle on this instance can wake the waiter in time.
        (throttle.poll, throttle.maxWait) = (.seconds(60), .seconds(60))
        var held: [LoginThrottle.Reservation] = []
        for _ in 0..<5 { held.append(try #require(Self.admitted(try await throttle.reserve(Self.keys, store: store, clock: clock)))) }
        let sixth = Task { [throttle] in try await throttle.reserve(Self.keys, store: store, clock: clock) }
        while throttle.waiters.registered == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let started = ContinuousClock.now
        try await throttle.succeeded(held[0], store: store)
        #expect(Self.admitted(try await sixth.value) != nil)
        #expect(ContinuousClock.now - started < .seconds(20), "woken by the settle, not by its timeout")
        #expect(throttle.waiters.count == 0)
        try await store.close()
    }

    @Test("still busy after maxWait: 429 in words, Retry-After 1, nobody left waiting", arguments: StoreBackend.allCases)
    func givesUpInWords(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let clock = ManualClock()
        var throttle = LoginThrottle()
        throttle.maxWait = .milliseconds(300)
        throttle.poll = .milliseconds(20)
        for _ in 0..<5 { #expect(Self.admitted(try await throttle.reserve(Self.keys, store: store, clock: clock)) != nil) }
        let answer = try await throttle.reserve(Self.keys, store: store, clock: clock)
        #expect(answer == .refused(.busy(keyHash: Self.keys.username)))
        let error = throttle.refusal(.busy(keyHash: Self.keys.username), keys: Self.keys, attempt: .password, now: clock.now())
        #expect(error.status == 429 && error.retryAfter == 1 && error.code == .accessDenied)
        #expect(error.errorDescription == "Too many sign-ins for this account are being checked at the same time. Try again in a moment.")
        #expect(throttle.waiters.count == 0)
        try await store.close()
    }

    @Test("failures lock at once, with the seconds left; the username's, the address's and a second factor's words",
          arguments: StoreBackend.allCases)
    func lockedInWords(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let clock = ManualClock()
        var throttle = LoginThrottle()
        throttle.maxWait = .seconds(60)
        for _ in 0..<5 {
            let reservation = try #require(Self.admitted(try await throttle.reserve(Self.keys, store: store, clock: clock)))
            try await throttle.failed(reservation, store: store, now: clock.now())
        }
        clock.advance(12)
        let started = ContinuousClock.now
        let answer = try await throttle.reserve(Self.keys, store: store, clock: clock)
        #expect(ContinuousClock.now - started < .seconds(20), "a lock is answered without waiting")
        guard case .refused(let decision) = answer else { Issue.record("not refused: \(answer)"); return }
        let password = throttle.refusal(decision, keys: Self.keys, attempt: .password, now: clock.now())
        #expect(password.errorDescription == "Too many failed sign-ins for this username. Wait 18 seconds, then try again.")
        #expect(password.status == 429 && password.retryAfter == 18)
        let code = throttle.refusal(decision, keys: Self.keys, attempt: .secondFactor, now: clock.now())
        #expect(code.errorDescription.hasPrefix("Too many wrong codes"))
        let address = throttle.refusal(.locked(keyHash: try #require(Self.keys.address), until: clock.now().addingTimeInterval(1)),
                                       keys: Self.keys, attempt: .password, now: clock.now())
        #expect(address.errorDescription == "Too many failed sign-ins from this network address. Wait 1 second, then try again.")
        try await store.close()
    }
}

/// The waiting room behind the throttle: a wake reaches the longest waiter, a timeout ends a wait
/// even before it is registered, and nothing is left behind.
@Suite("Security: throttle waiters")
struct ThrottleWaitersTests {
    @Test("a wake ends the longest wait of its key; a timeout ends a wait, even one not registered yet; nothing is left")
    func wakeAndTimeout() async throws {
        let waiters = ThrottleWaiters()
        let order = OrderLog()
        let first = Task { await waiters.wait(for: "k", timeout: .seconds(60)); order.append(1) }
        while waiters.registered < 1 { try await Task.sleep(for: .milliseconds(2)) }
        let second = Task { await waiters.wait(for: "k", timeout: .seconds(60)); order.append(2) }
        while waiters.registered < 2 { try await Task.sleep(for: .milliseconds(2)) }
        waiters.wake(["k", nil, "other"])
        await first.value
        #expect(order.values == [1])
        #expect(waiters.registered == 1)
        waiters.wake(["k"])
        await second.value
        #expect(order.values == [1, 2])
        #expect(waiters.count == 0)
        // Timeouts: a short one, and one of zero, which may pass before the wait is registered.
        await waiters.wait(for: "k", timeout: .milliseconds(20))
        for _ in 0..<50 { await waiters.wait(for: "k", timeout: .zero) }
        #expect(waiters.count == 0 && waiters.registered == 0)
    }
}

/// What finished, in order.
final class OrderLog: Sendable {
    private let stored = Mutex<[Int]>([])
    var values: [Int] { stored.withLock { $0 } }
    func append(_ value: Int) { stored.withLock { $0.append(value) } }
}
