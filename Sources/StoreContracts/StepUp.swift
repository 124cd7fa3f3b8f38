import Foundation

/// What an authorization asks of the sign-in beyond the first factor (docs/mfa.md, "Step-up on
/// request"): `acr_values` naming only the second-factor class is `requested` (done when the auth
/// service can offer a second factor); an essential `acr` claim naming it is `essential` (refused
/// with `unmet_authentication_requirements` when it cannot).
public enum StepUp: String, Sendable, Codable {
    case requested
    case essential
}
