import Foundation
import IdentityCore
import StoreContracts

/// Slows down password guessing (docs/protocol.md, "Throttling and rate limits";
/// docs/security.md, rule 6): after `perUsername.limit` attempts for one username (or
/// `perAddress.limit` from one address) within the window, at most one attempt per `spacing`.
/// Attempts are counted in storage before the connector is asked, one atomic statement per key, so
/// parallel guesses cannot slip past the limit and every instance sharing the database counts
/// together. A success clears the username's count and takes its attempt back from the address
/// (many people behind one NAT or proxy must not hold each other back).
///
/// Usernames are counted normalized (trimmed, case-folded, and as the connector names the
/// account: for AD `CORP\alice`, `alice@corp.example.org` and `alice` are one key), and every
/// key is stored as a hash: what a flood of unique usernames costs is one fixed-size row each,
/// capped by housekeeping (docs/security.md, rule 13). It applies to every username alike, existing
/// or not, so it tells nothing about which exist.
public struct LoginThrottle: Sendable {
    /// One limit: `limit` attempts per `window` seconds, then one per `spacing` seconds.
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

    /// The counters of one password attempt.
    public struct Keys: Sendable, Equatable {
        public var username: String
        public var address: String?

        /// What a success does to these counters: the username's is cleared, the address gets
        /// its attempt back.
        public var reset: ThrottleReset { ThrottleReset(reset: username, release: address) }
    }

    public var perUsername = Policy(limit: 5, window: 300, spacing: 30)
    /// Higher than per username: many people can share one address.
    public var perAddress = Policy(limit: 50, window: 300, spacing: 30)
    /// Counters kept at most (housekeeping drops the longest-unused first).
    public var maxCounters = 100_000

    /// Longer usernames are refused before any connector call or bookkeeping
    /// (docs/security.md, rule 13).
    public static let maxUsernameBytes = 256
    public static let message = "Too many failed attempts. Wait 30 seconds, then try again."

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
    /// with the same result (tested against Foundation's): Foundation's three passes were about
    /// 1.7% of a sign-in's CPU.
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

    /// Counts the attempt under every key; false (nothing more counted) once a key is exhausted.
    /// The address goes first: an address that is held back spends nobody's username budget and
    /// adds no counter for each new username it tries.
    public func attempt(_ keys: Keys, store: any ThrottleStore, now: Date) async throws -> Bool {
        var rules = [rule(keys.username, perUsername)]
        if let address = keys.address { rules.insert(rule(address, perAddress), at: 0) }
        return try await store.throttleAttempts(rules, at: now)
    }

    /// A successful sign-in.
    public func succeeded(_ keys: Keys, store: any ThrottleStore) async throws {
        try await store.throttleSucceeded(reset: keys.reset.reset, release: keys.reset.release)
    }

    /// An attempt the identity source never answered (an outage, a timeout): nothing was learned
    /// about the password, so both counters get the attempt back. Without this, one outage seen by
    /// the users behind one address held all of them back for the whole window afterwards. A wrong
    /// password is still counted: it is answered as a refusal, not as unavailable.
    public func unanswered(_ keys: Keys, store: any ThrottleStore) async throws {
        try await store.throttleSucceeded(reset: nil, release: keys.address)
        try await store.throttleSucceeded(reset: nil, release: keys.username)
    }

    private func rule(_ key: String, _ policy: Policy) -> ThrottleRule {
        ThrottleRule(keyHash: key, limit: policy.limit, window: policy.window, spacing: policy.spacing)
    }
}
