import Foundation
import IdentityCore
import StoreContracts

/// Second-factor attempts in the login throttle (docs/mfa.md, "Throttling"; docs/security.md,
/// rule 6): counted under the user (per auth service) and the client address, failures only.
extension SecondFactors {
    /// Runs `check` as one attempt: refused in words while the user or the address is throttled;
    /// otherwise a refusal by `check` is counted as a failure, a success clears the user's
    /// failures, and an error gives the attempt's places back (nothing was decided).
    func throttled<T>(_ owner: MFAOwner, _ client: ResolvedClient, _ address: String?, method: String = "otp",
                      _ check: () async throws -> Result<T, OAuthError>) async throws -> Result<T, OAuthError> {
        let keys = LoginThrottle.secondFactorKeys(namespace: owner.namespace, userId: owner.userId, address: address)
        let reservation: LoginThrottle.Reservation
        switch try await throttle.reserve(keys, store: throttleStore, clock: context.clock) {
        case .admitted(let admitted):
            reservation = admitted
        case .refused(let decision):
            let error = throttle.refusal(decision, keys: keys, attempt: .secondFactor, now: context.clock.now())
            return refuse(owner, client, address, "throttled", error, method: method)
        }
        let outcome: Result<T, OAuthError>
        do {
            outcome = try await check()
        } catch {
            try? await throttle.unanswered(reservation, store: throttleStore)
            throw error
        }
        switch outcome {
        case .success:
            try await throttle.succeeded(reservation, store: throttleStore)
        case .failure:
            try await throttle.failed(reservation, store: throttleStore, now: context.clock.now())
        }
        return outcome
    }
}
