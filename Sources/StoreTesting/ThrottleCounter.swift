import Foundation
import StoreContracts

/// One key's row in a ``MemoryStore``'s throttle table (``ThrottleStore``): how many requests (a
/// rate limit) or failures (the login throttle) its window holds, the last one, until when the
/// row is kept, and the login attempts in flight, each by the date it was reserved at.
struct ThrottleCounter: Sendable {
    var windowStart: Date
    var count: Int
    var lastAttempt: Date
    var expiresAt: Date
    var inFlight: [Date] = []

    /// A key nothing has happened to yet, as of `now`.
    init(at now: Date, keptFor keep: TimeInterval) {
        windowStart = now
        count = 0
        lastAttempt = now
        expiresAt = now.addingTimeInterval(keep)
    }

    /// Whether the window that holds `count` ended at `now` (it lasts the rule's window, or its
    /// spacing when that is longer).
    func windowEnded(_ rule: ThrottleRule, at now: Date) -> Bool {
        windowStart <= now.addingTimeInterval(-rule.span)
    }

    /// When the key was last used: its last counted attempt or its newest reservation.
    var lastUsed: Date { inFlight.reduce(lastAttempt, max) }

    /// No failures and nothing in flight: the row may go.
    var isIdle: Bool { count == 0 && inFlight.isEmpty }

    /// Keeps the row at least `keep` past `now`.
    mutating func keep(_ keep: TimeInterval, from now: Date) {
        expiresAt = max(expiresAt, now.addingTimeInterval(keep))
    }

    /// Gives back the reservation made at `stamp` (one of them, when several were made at once).
    mutating func release(reservedAt stamp: Date) {
        if let index = inFlight.firstIndex(of: stamp) { inFlight.remove(at: index) }
    }

    /// A rate limit's request: counted when the window still has room, the window ended, or the
    /// last one is a spacing ago; otherwise nothing changes. Whether it was counted.
    mutating func countRequest(_ rule: ThrottleRule, at now: Date) -> Bool {
        let ended = windowEnded(rule, at: now)
        guard ended || count < rule.limit || lastAttempt <= now.addingTimeInterval(-rule.spacing) else { return false }
        if ended { (windowStart, count) = (now, 0) }
        count += 1
        lastAttempt = now
        keep(rule.span, from: now)
        return true
    }

    /// A login attempt's reservation, decided on the failures still in the window and the
    /// attempts in flight (reservations older than the rule's hold forgotten first); reserved,
    /// it joins those in flight.
    mutating func reserve(_ rule: ThrottleRule, at now: Date) -> ThrottleDecision {
        inFlight.removeAll { $0 <= now.addingTimeInterval(-rule.hold) }
        let decision = admission(rule, at: now)
        if decision == .reserved {
            inFlight.append(now)
            keep(rule.keep, from: now)
        }
        return decision
    }

    /// Room for one more: failures and attempts in flight under the limit, or, with the limit of
    /// failures reached, none in flight once the spacing after the last failure has passed.
    func admission(_ rule: ThrottleRule, at now: Date) -> ThrottleDecision {
        let failures = windowEnded(rule, at: now) ? 0 : count
        guard failures + inFlight.count >= rule.limit else { return .reserved }
        let spacingEnds = lastAttempt.addingTimeInterval(rule.spacing)
        if failures >= rule.limit, spacingEnds > now {
            return .locked(keyHash: rule.keyHash, until: min(spacingEnds, windowStart.addingTimeInterval(rule.span)))
        }
        return inFlight.isEmpty ? .reserved : .busy(keyHash: rule.keyHash)
    }

    /// The attempt reserved at `stamp` failed at `now`: a failure counted in the window (a new
    /// window when the last one ended or held none).
    mutating func countFailure(_ rule: ThrottleRule, reservedAt stamp: Date, at now: Date) {
        release(reservedAt: stamp)
        if count == 0 || windowEnded(rule, at: now) { (windowStart, count) = (now, 0) }
        count += 1
        lastAttempt = now
        keep(rule.keep, from: now)
    }
}

extension ThrottleRule {
    /// How long a window lasts: the rule's window, or its spacing when that is longer.
    var span: TimeInterval { max(window, spacing) }
}
