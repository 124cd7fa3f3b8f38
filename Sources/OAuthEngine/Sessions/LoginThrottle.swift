import Foundation
import IdentityCore
import StoreContracts

/// Slows down password guessing (docs/protocol.md, "Throttling and rate limits";
/// docs/security.md, rule 6): after `perUsername.limit` failed attempts for one username (or
/// `perAddress.limit` from one address) within the window, at most one attempt per `spacing`.
///
/// Only failures count: a wrong password or second factor. Before the identity source is asked,
/// the attempt reserves a place under each key in storage (one atomic statement per key, so
/// every instance sharing the database decides together); a key has as many places as failures
/// it still allows, so guesses sent at once reach the identity source no more often than guesses
/// sent one after another. The attempt then settles its reservation exactly once: a failure is
/// counted, a success clears the username's failures and gives the places back, and an identity
/// source that never answered gives them back. An attempt that finds every place of a key taken
/// by attempts in flight — many clients signing in one account at once — waits for one to settle
/// (``ThrottleWaiters``) instead of being refused.
///
/// Usernames are counted normalized (trimmed, case-folded, and as the connector names the
/// account: for AD `CORP\alice`, `alice@corp.example.org` and `alice` are one key), and every
/// key is stored as a hash: what a flood of unique usernames costs is one fixed-size row each,
/// capped by housekeeping (docs/security.md, rule 13). It applies to every username alike, existing
/// or not, so it tells nothing about which exist.
public struct LoginThrottle: Sendable {
    /// One limit: `limit` failed attempts per `window` seconds, then one attempt at a time per
    /// `spacing` seconds after the last failure.
    public struct Policy: Sendable, Equatable {
        public var limit: Int
        public var window: TimeInterval
        public var spacing: TimeInterval

        public init(limit: Int, window: TimeInterval, spacing: TimeInterval) {
            self.limit = limit
            self.window = window
            self.spacing = spacing
        }
    }

    /// The counters of one attempt: the username's (or, for a second factor, the user's) and the
    /// client address's.
    public struct Keys: Sendable, Equatable {
        public var username: String
        public var address: String?
    }

    /// The places one attempt holds under its keys: settled exactly once (`failed`,
    /// `succeeded`, `unanswered`).
    public struct Reservation: Sendable, Equatable {
        public var keys: Keys
        /// The date of the reservation, which names it among the key's others.
        public var reservedAt: Date

        /// What a correct password does: the username's failures cleared, both places given back.
        public var reset: ThrottleReset { ThrottleReset(reset: keys.username, release: keys.address, reservedAt: reservedAt) }
    }

    /// Whether an attempt may go ahead.
    public enum Admission: Sendable, Equatable {
        case admitted(Reservation)
        /// Locked by failures, or still busy when `maxWait` ran out.
        case refused(ThrottleDecision)
    }

    public var perUsername = Policy(limit: 5, window: 300, spacing: 30)
    /// Higher than per username: many people can share one address.
    public var perAddress = Policy(limit: 50, window: 300, spacing: 30)
    /// Counters kept at most (housekeeping drops the longest-unused first).
    public var maxCounters = 100_000
    /// How long a reservation holds its place at most: longer than an identity source is normally
    /// waited for, so that only an instance that stopped mid-attempt leaves a place taken, and not
    /// for long. (An attempt that outlasts it is still settled; its place was free again earlier.)
    public var hold: TimeInterval = 60
    /// How long an attempt waits for a place while attempts in flight hold them all.
    public var maxWait: Duration = .seconds(10)
    /// How often a waiting attempt asks the store again when nothing on this instance woke it.
    public var poll: Duration = .milliseconds(50)
    /// The attempts of this instance waiting for a place (shared by every copy of this value).
    let waiters = ThrottleWaiters()

    /// Longer usernames are refused before any connector call or bookkeeping
    /// (docs/security.md, rule 13).
    public static let maxUsernameBytes = 256

    public init() {}

    /// The keys for an attempt: the normalized username within its auth service, and the
    /// client address (IPv6 by /64).
    public static func keys(namespace: String, username: String, address: String?) -> Keys {
        let folded = folded(username)
        return Keys(username: Secrets.hash("user\u{0}\(namespace)\u{0}\(folded)"),
                    address: address.map { Secrets.hash("addr\u{0}" + ClientAddress.throttleKey($0)) })
    }

    /// One spelling for every way of typing a username: surrounding white space trimmed,
    /// canonically composed (NFC), case folded. ASCII, nearly every username, takes a byte path
    /// with the same result (tested against Foundation's), sparing every sign-in Foundation's
    /// three passes.
    static func folded(_ username: String) -> String {
        let bytes = username.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return username.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
                .folding(options: [.caseInsensitive], locale: nil)
        }
        // Foundation's white space and newlines in ASCII: tab, line feed, vertical tab, form feed, carriage return, space.
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Reserves a place for an attempt under every key, the address first (an address that is
    /// held back spends nobody's username budget). While a key's places are all held by attempts
    /// in flight, waits for one (at most `maxWait`).
    public func reserve(_ keys: Keys, store: any ThrottleStore, clock: any BrokerClock) async throws -> Admission {
        let rules = rules(keys)
        let started = ContinuousClock.now
        while true {
            let now = clock.now()
            let decision = try await store.throttleReserve(rules, at: now)
            guard case .busy(let key) = decision else {
                return decision == .reserved ? .admitted(Reservation(keys: keys, reservedAt: now)) : .refused(decision)
            }
            let left = maxWait - (ContinuousClock.now - started)
            guard left > .zero else { return .refused(decision) }
            await waiters.wait(for: key, timeout: min(left, poll))
        }
    }

    /// The attempt failed (a wrong password or code): counted under every key.
    public func failed(_ reservation: Reservation, store: any ThrottleStore, now: Date) async throws {
        defer { settled(reservation) }
        try await store.throttleFailed(rules(reservation.keys), reservedAt: reservation.reservedAt, at: now)
    }

    /// A successful sign-in (or second factor): the username's failures cleared, the places given back.
    public func succeeded(_ reservation: Reservation, store: any ThrottleStore) async throws {
        defer { settled(reservation) }
        try await store.throttleSucceeded(reservation.reset)
    }

    /// An attempt that ended without a verdict on the password: the identity source never
    /// answered (an outage, a timeout), asked a question first, or the attempt failed on our side.
    /// Nothing was learned, so the places are given back and nothing is counted.
    public func unanswered(_ reservation: Reservation, store: any ThrottleStore) async throws {
        defer { settled(reservation) }
        try await store.throttleSucceeded(ThrottleReset(reset: nil, release: reservation.keys.address, reservedAt: reservation.reservedAt))
        try await store.throttleSucceeded(ThrottleReset(reset: nil, release: reservation.keys.username, reservedAt: reservation.reservedAt))
    }

    /// A reservation was settled (here, or in the write completing a sign-in): the next attempt
    /// waiting under its keys asks again.
    func settled(_ reservation: Reservation) {
        waiters.wake([reservation.keys.address, reservation.keys.username])
    }

    private func rules(_ keys: Keys) -> [ThrottleRule] {
        var rules = [rule(keys.username, perUsername)]
        if let address = keys.address { rules.insert(rule(address, perAddress), at: 0) }
        return rules
    }

    private func rule(_ key: String, _ policy: Policy) -> ThrottleRule {
        ThrottleRule(keyHash: key, limit: policy.limit, window: policy.window, spacing: policy.spacing, hold: hold)
    }
}
