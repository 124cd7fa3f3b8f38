import Foundation
import IdentityCore
import StoreContracts

/// API mode (password grant, temp login URI; docs/mfa.md): no page to show, so the client sends
/// the code as `otp` with the password, and hears `mfa_required` in words when it must.
extension SecondFactors {
    /// The `amr` the sign-in ends with, or throws `mfa_required` (nothing sent, a passkey-only
    /// account, enrolment needed) or `access_denied` (a wrong or replayed code, throttled).
    func checkAPI(userId: String, client: ResolvedClient, amr: [String], otp: String?, address: String?) async throws -> [String] {
        let required = try await need(Self.owner(userId: userId, client: client), client: client, amr: amr)
        return try await checkAPI(required, client: client, amr: amr, otp: otp, address: address)
    }

    /// `checkAPI` once the caller has asked `need` itself.
    func checkAPI(_ need: SecondFactorNeed, client: ResolvedClient, amr: [String], otp: String?, address: String?) async throws -> [String] {
        switch need {
        case .none:
            return amr
        case .enrol:
            throw OAuthError.mfaRequired("This account must set up a second factor before it can sign in from an app. "
                + "Sign in once in a browser (the hosted login page, or \(context.issuer)/account?client_id=\(RedirectURL.encode(client.clientId))) "
                + "to set one up, then try again.")
        case .verify(let enrolment):
            guard let otp, !otp.isEmpty else {
                if enrolment.totp == nil && enrolment.recoveryCodesLeft == 0 {
                    throw OAuthError.mfaRequired("This account signs in with a passkey, which needs a browser: "
                        + "use the browser sign-in (GET /oauth/auth) instead of the password grant.")
                }
                throw OAuthError.mfaRequired("A second factor is required: send the 6-digit code from the authenticator app "
                    + "(or a recovery code) as the parameter 'otp'.")
            }
            let method = try await verifyCode(otp, enrolment: enrolment, client: client, address: address).get()
            var result = amr
            for value in [method, "mfa"] where !result.contains(value) { result.append(value) }
            return result
        }
    }
}
