import Foundation
import IdentityCore
import StoreContracts

/// What a refused attempt is told (docs/security.md, rule 6; SPEC §3.7): 429 `access_denied` with
/// what happened in words — too many failed sign-ins or wrong codes, for the account or from the
/// network address — and when to try again, also as `Retry-After`.
extension LoginThrottle {
    /// What was attempted, for the words of a refusal.
    public enum Attempt: Sendable {
        /// A password, or the answer to an identity source's question.
        case password
        /// A second factor: an authenticator-app or recovery code, or a passkey.
        case secondFactor
    }

    /// The error for an attempt refused with `decision` at `now`.
    public func refusal(_ decision: ThrottleDecision, keys: Keys, attempt: Attempt, now: Date) -> OAuthError {
        switch decision {
        case .locked(let key, let until):
            // Whole seconds, rounded up; to the millisecond first, so that the float arithmetic
            // of dates does not turn 30 s into 31.
            let seconds = max(1, Int(((until.timeIntervalSince(now) * 1000).rounded() / 1000).rounded(.up)))
            let wait = "Wait \(seconds) second\(seconds == 1 ? "" : "s"), then try again."
            let what = switch (key == keys.address, attempt) {
            case (true, _): "Too many failed sign-ins from this network address."
            case (false, .password): "Too many failed sign-ins for this username."
            case (false, .secondFactor): "Too many wrong codes or passkey attempts for this account."
            }
            return OAuthError(.accessDenied, what + " " + wait, status: 429, retryAfter: seconds)
        case .busy(let key):
            let whose = key == keys.address ? "from this network address" : "for this account"
            return OAuthError(.accessDenied, "Too many sign-ins \(whose) are being checked at the same time. Try again in a moment.",
                              status: 429, retryAfter: 1)
        case .reserved:
            // Not a refusal: no caller asks for its words.
            return OAuthError(.accessDenied, "Try again in a moment.", status: 429, retryAfter: 1)
        }
    }
}
