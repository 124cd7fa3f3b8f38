import StoreContracts
import Synchronization

/// A correct password's reset of the login throttle (`LoginThrottle.succeeded`), carried to the
/// write that completes the sign-in so that it costs no transaction of its own (one write fewer
/// per sign-in; docs/security.md, rule 6).
///
/// Exactly one thing settles it: the completing write, which carries `reset` and calls
/// `performed()` once it has returned, or else `settle()`, which every other way out of the
/// sign-in calls — a second step, a refusal after the password (an API sign-in's missing
/// one-time code, a binding that does not allow the client), an error. A reset that nothing
/// settled would leave the username's failed attempts counting against the person who just
/// proved the password.
final class PendingThrottleReset: Sendable {
    let reset: ThrottleReset
    private let store: any ThrottleStore
    private let settled = Mutex(false)

    init(_ reset: ThrottleReset, store: any ThrottleStore) {
        self.reset = reset
        self.store = store
    }

    /// The completing write carried `reset` and committed: nothing is left to do.
    func performed() {
        settled.withLock { $0 = true }
    }

    /// Applies the reset in a write of its own, unless the completing write did (or an earlier
    /// `settle()`): at most once.
    func settle() async throws {
        let first = settled.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        try await store.throttleSucceeded(reset: reset.reset, release: reset.release)
    }
}
