import Foundation
import IdentityCore
import Synchronization

/// Slows down password guessing per username and per client address (SPEC §3.7): after
/// `maxFailures` failures for one username (or `maxAddressFailures` from one address) within
/// `window`, at most one attempt per `spacing`. It applies to every username alike, existing or
/// not, so it tells nothing about which exist. The address limit is higher because many people
/// can share one address (an office NAT, a reverse proxy): a few typos there must not hold
/// everyone back, while a guessing run across usernames still is.
///
/// State is kept in memory per broker instance and bounded in size.
public final class LoginThrottle: Sendable {
    struct Entry {
        var failures: [Date] = []
        var lastAttempt: Date = .distantPast
    }

    public let maxFailures: Int
    public let maxAddressFailures: Int
    public let window: TimeInterval
    public let spacing: TimeInterval
    private let maxKeys: Int
    private let entries = Mutex<[String: Entry]>([:])

    public init(maxFailures: Int = 5, maxAddressFailures: Int = 50, window: TimeInterval = 300, spacing: TimeInterval = 30,
                maxKeys: Int = 100_000) {
        self.maxFailures = maxFailures
        self.maxAddressFailures = maxAddressFailures
        self.window = window
        self.spacing = spacing
        self.maxKeys = maxKeys
    }

    /// The keys for an attempt: the username within its auth service, and the client address.
    public static func keys(namespace: String, username: String, address: String?) -> [String] {
        ["user:\(namespace):\(username.lowercased())"] + (address.map { ["addr:\($0)"] } ?? [])
    }

    /// Whether an attempt may go ahead now; if so it is recorded as the latest attempt.
    public func allow(_ keys: [String], now: Date) -> Bool {
        entries.withLock { entries in
            for key in keys {
                guard var entry = entries[key] else { continue }
                entry.failures.removeAll { now.timeIntervalSince($0) > window }
                entries[key] = entry
                if entry.failures.count >= limit(for: key) && now.timeIntervalSince(entry.lastAttempt) < spacing { return false }
            }
            for key in keys where entries[key] != nil { entries[key]?.lastAttempt = now }
            return true
        }
    }

    public func recordFailure(_ keys: [String], now: Date) {
        entries.withLock { entries in
            if entries.count >= maxKeys { Self.evict(&entries, now: now, window: window) }
            for key in keys {
                var entry = entries[key] ?? Entry()
                entry.failures.removeAll { now.timeIntervalSince($0) > window }
                entry.failures.append(now)
                // Only the newest `limit` failures matter; a flood must not grow the record.
                if entry.failures.count > limit(for: key) { entry.failures.removeFirst(entry.failures.count - limit(for: key)) }
                entry.lastAttempt = now
                entries[key] = entry
            }
        }
    }

    private func limit(for key: String) -> Int {
        key.hasPrefix("addr:") ? maxAddressFailures : maxFailures
    }

    /// A successful sign-in clears the username's record (not the address's).
    public func recordSuccess(_ keys: [String]) {
        entries.withLock { entries in
            for key in keys where key.hasPrefix("user:") { entries[key] = nil }
        }
    }

    /// Drops entries with no failure inside the window.
    public func prune(now: Date) {
        entries.withLock { Self.evict(&$0, now: now, window: window) }
    }

    private static func evict(_ entries: inout [String: Entry], now: Date, window: TimeInterval) {
        entries = entries.filter { _, entry in entry.failures.contains { now.timeIntervalSince($0) <= window } }
    }

    public static let message = "Too many failed attempts. Wait 30 seconds, then try again."
}
