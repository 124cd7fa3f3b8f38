import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// Step-up on request (docs/mfa.md, "Step-up on request"): an authorization that asks for the
/// second-factor class (`urn:idconnect:acr:mfa`) gets a sign-in that includes a second factor,
/// whatever the auth service's `mfa.mode` would ask of this user: one who has a factor proves it,
/// one without enrols one first. A resource server that wants more than a password answers
/// `insufficient_user_authentication` (RFC 9470) and the client comes back with `acr_values`.
extension StepUp {
    /// What `acr_values` (space-separated, in order of preference) and the `claims` parameter ask
    /// of a sign-in at an auth service with `mfa`. A list asks for the second factor when it names
    /// that class and not the password class; classes the broker does not know are ignored. An
    /// essential `acr` the auth service cannot reach (no second factor offered) is
    /// `unmet_authentication_requirements`; `acr_values` it cannot reach are left to the ID
    /// token's `acr`, which says what happened.
    static func asked(acrValues: String?, claims: ClaimsRequest?, mfa: MFASettings) throws(OAuthError) -> StepUp? {
        if let essential = claims?.essentialACR, asksSecondFactor(essential) {
            guard mfa.mode != .off else {
                throw OAuthError(.unmetAuthenticationRequirements, "This app's sign-in offers no second factor, which the request requires.")
            }
            return .essential
        }
        guard let acrValues, asksSecondFactor(acrValues.split(separator: " ").map(String.init)), mfa.mode != .off else { return nil }
        return .requested
    }

    static func asksSecondFactor(_ classes: [String]) -> Bool {
        classes.contains(AuthenticationContext.secondFactor) && !classes.contains(AuthenticationContext.password)
    }
}
