import Foundation

/// One counter of the throttle: a hashed key, how many attempts (rate limits) or failures (the
/// login throttle) its window allows, and the spacing enforced once the limit is reached
/// (docs/protocol.md, "Throttling and rate limits"; docs/security.md, rules 6 and 13).
public struct ThrottleRule: Sendable, Equatable {
    /// `Secrets.hash` of the key (username, address, token), so stored keys have a fixed size and
    /// reveal nothing.
    public var keyHash: String
    public var limit: Int
    public var window: TimeInterval
    public var spacing: TimeInterval
    /// How long a reservation (`ThrottleStore.throttleReserve`) holds its place at most: one
    /// that is never settled (its instance stopped) is forgotten after this.
    public var hold: TimeInterval

    public init(keyHash: String, limit: Int, window: TimeInterval, spacing: TimeInterval, hold: TimeInterval = 60) {
        self.keyHash = keyHash
        self.limit = limit
        self.window = window
        self.spacing = spacing
        self.hold = hold
    }

    /// How long a counter is kept after it last changed.
    public var keep: TimeInterval { max(window, spacing, hold) }
}

/// What a login attempt that was not a failure does to the counters its reservation holds
/// (`ThrottleStore.throttleSucceeded`): `reset` (the username's, after a correct password) has
/// its failures cleared and its reservation released; `release` (the address's, or any key of an
/// attempt the identity source never answered) has its reservation released, its failures kept.
public struct ThrottleReset: Sendable, Equatable {
    public var reset: String?
    public var release: String?
    /// The date the reservations were made with: which of a key's reservations to release.
    public var reservedAt: Date

    public init(reset: String?, release: String?, reservedAt: Date) {
        self.reset = reset
        self.release = release
        self.reservedAt = reservedAt
    }
}

/// The answer to a login attempt's reservation (`ThrottleStore.throttleReserve`).
public enum ThrottleDecision: Sendable, Equatable {
    /// Reserved under every rule: the attempt goes ahead and is settled exactly once, as a
    /// failure (`throttleFailed`) or not (`throttleSucceeded`).
    case reserved
    /// `keyHash` has reached its limit of failures: no attempt before `until`.
    case locked(keyHash: String, until: Date)
    /// Every attempt `keyHash` allows now is in flight: asking again once one settles may succeed.
    case busy(keyHash: String)
}

/// Counters shared by every broker instance: the login throttle, registration and
/// authorization-request rate limits.
///
/// The login throttle counts failures only. An attempt first reserves a place under each of its
/// keys; a key allows a reservation while its failures in the window plus the reservations in
/// flight stay under the limit, or, once the failures reached it, one at a time every `spacing`
/// after the last failure. A wrong password turns the reservation into a failure; a correct one,
/// or an identity source that never answered, gives it back. So guesses sent at once reach the
/// identity source no more often than one after another would, and correct attempts never count.
public protocol ThrottleStore: Sendable {
    /// Rate limits: checks and counts one request in a single atomic step: allowed (and counted)
    /// while the key has fewer than `limit` requests in its window, or its last one is at least
    /// `spacing` old; otherwise nothing changes and it returns false.
    func throttleAttempt(_ rule: ThrottleRule, at date: Date) async throws -> Bool
    /// The login throttle: reserves a place under each rule in order, each in one atomic step
    /// decided on the key's current counter (shared by every instance). On the first rule that
    /// refuses, the places reserved before it are given back and its decision is returned.
    func throttleReserve(_ rules: [ThrottleRule], at date: Date) async throws -> ThrottleDecision
    /// The attempt reserved at `reservedAt` failed (a wrong password or code): under each rule its
    /// reservation becomes a failure counted at `date`.
    func throttleFailed(_ rules: [ThrottleRule], reservedAt: Date, at date: Date) async throws
    /// The attempt was not a failure: see ``ThrottleReset``.
    func throttleSucceeded(_ reset: ThrottleReset) async throws
    /// Keeps at most `maxRows` counters, dropping those attempted longest ago — counters that
    /// reached a limit (five or more) last, so a flood of junk keys cannot evict the counter that
    /// is holding a guesser back.
    func capThrottle(maxRows: Int) async throws
}
