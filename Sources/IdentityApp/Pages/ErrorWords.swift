import IdentityCore

/// What an OAuth error code means to the person in front of the page, in words (a catalog
/// message): an error page in another language leads with it when the catalog has no
/// translation of the error's own description (docs/languages.md).
enum ErrorWords {
    static func meaning(of code: OAuthError.Code) -> String {
        switch code.rawValue {
        case "invalid_request", "invalid_request_object", "request_not_supported", "request_uri_not_supported":
            "The app's sign-in request could not be accepted."
        case "invalid_client", "unauthorized_client", "invalid_redirect_uri", "invalid_client_metadata",
             "invalid_software_statement", "unapproved_software_statement":
            "This app is not allowed to sign in here."
        case "invalid_grant", "expired_token", "invalid_token":
            "This sign-in link has expired or was used already."
        case "invalid_scope", "invalid_target":
            "The app asked for access it cannot have."
        case "access_denied":
            "The sign-in was not allowed."
        case "login_required":
            "You need to sign in again."
        case "consent_required":
            "The app needs your permission first."
        case "unmet_authentication_requirements", "insufficient_user_authentication", "mfa_required":
            "This sign-in needs a stronger way of signing in."
        case "temporarily_unavailable", "slow_down", "authorization_pending":
            "The service is busy. Try again in a moment."
        default:
            "Something went wrong on our side."
        }
    }
}
