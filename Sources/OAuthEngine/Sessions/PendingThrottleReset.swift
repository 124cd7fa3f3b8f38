import StoreContracts
import Synchronization

/// A correct password's settlement of its login-throttle reservation (`LoginThrottle.succeeded`),
/// carried to the write that completes the sign-in so that it costs no transaction of its own
/// (one write fewer per sign-in; docs/security.md, rule 6).
///
/// Exactly one thing settles it: the completing write, which carries `reset` and calls
/// `performed()` once it has returned, or else `settle()`, which every other way out of the
/// sign-in calls — a second step, a refusal after the password (an API sign-in's missing
/// one-time code, a binding that does not allow the client), an error. A reset that nothing
/// settled would leave the username's failed attempts counting against the person who just
/// proved the password, and the reservation's places taken until their hold ran out.
final class PendingThrottleReset: Sendable {
    let reservation: LoginThrottle.Reservation
    private let throttle: LoginThrottle
    private let store: any ThrottleStore
    private let settled = Mutex(false)

    init(_ reservation: LoginThrottle.Reservation, throttle: LoginThrottle, store: any ThrottleStore) {
        self.reservation = reservation
        self.throttle = throttle
        self.store = store
    }

    /// What the completing write does to the counters; nil once settled (the write carries nothing).
    var reset: ThrottleReset? { settled.withLock { $0 } ? nil : reservation.reset }

    /// The completing write carried `reset` and committed: nothing is left to do but to let the
    /// attempts waiting under the same keys ask again.
    func performed() {
        guard claim() else { return }
        throttle.settled(reservation)
    }

    /// Applies the reset in a write of its own, unless the completing write did (or an earlier
    /// `settle()`): at most once.
    func settle() async throws {
        guard claim() else { return }
        try await throttle.succeeded(reservation, store: store)
    }

    private func claim() -> Bool {
        settled.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
