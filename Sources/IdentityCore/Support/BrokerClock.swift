import Foundation
import Synchronization

/// Where the broker reads the current time. Injected everywhere so tests can move time
/// (code expiry, token TTLs, upstream refresh) without sleeping.
public protocol BrokerClock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemClock: BrokerClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to. For tests and the benchmark's simulated time.
public final class ManualClock: BrokerClock {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(_ seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) { current.withLock { $0 = date } }
}

extension Date {
    /// Seconds since 1970, rounded down: JWT and OIDC want whole seconds.
    public var epochSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
}
