import Foundation
import IdentityCore
import StoreContracts

/// Work anyone may ask for before signing in, limited per client address
/// (docs/security.md, rules 6 and 13).
public enum RateLimitedAction: Sendable {
    /// A new authorization request: each stores a pending sign-in.
    case authorization
    /// An app instance registration (counted per address before anything is checked).
    case registration
    /// A registration with this (valid) initial access token: the fleet-wide ceiling.
    case registrationWithToken(String)
    /// A user code typed on the device page: guessing is limited per address.
    case userCode
}

/// Counts actions against `server.rateLimits` with the throttle's counters (atomic, shared by
/// every instance); over the limit it throws 429 with `Retry-After`.
struct RateLimiter: Sendable {
    let live: LiveState
    let counters: any ThrottleStore
    let clock: any BrokerClock

    func admit(_ action: RateLimitedAction, clientAddress: String?) async throws {
        let limits = live.snapshot.config.server.rateLimits
        var rules: [(key: String, perMinute: Int)] = []
        switch action {
        case .authorization:
            if let clientAddress { rules.append(("auth\u{0}" + ClientAddress.throttleKey(clientAddress), limits.authorizationsPerMinute)) }
        case .registration:
            if let clientAddress { rules.append(("reg\u{0}" + ClientAddress.throttleKey(clientAddress), limits.registrationsPerMinute)) }
        case .registrationWithToken(let token):
            rules.append(("regtoken\u{0}" + Secrets.hash(token), limits.registrationsPerTokenPerMinute))
        case .userCode:
            if let clientAddress { rules.append(("usercode\u{0}" + ClientAddress.throttleKey(clientAddress), limits.userCodesPerMinute)) }
        }
        for rule in rules {
            // After `perMinute` in a minute, one more per 60/perMinute seconds: the steady rate.
            let spacing = 60 / Double(max(rule.perMinute, 1))
            let allowed = try await counters.throttleAttempt(ThrottleRule(keyHash: Secrets.hash(rule.key), limit: rule.perMinute,
                                                            window: 60, spacing: spacing), at: clock.now())
            guard allowed else {
                throw OAuthError(.invalidRequest, "Too many requests from this client; wait a moment, then try again.",
                                 status: 429, retryAfter: max(1, Int(spacing.rounded(.up))))
            }
        }
    }
}
