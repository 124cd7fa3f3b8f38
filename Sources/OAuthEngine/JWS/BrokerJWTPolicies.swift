import Foundation
import JOSE

/// The ``JWTPolicy`` of each JWT the engine accepts (docs/security.md, "One JWT policy"). The
/// upstream id_token's policy lives with the OpenID Connect connector (`IDTokenValidator.policy`).
public enum BrokerJWTPolicies {
    /// The broker's own JWT access tokens (RFC 9068 `at+jwt`) at validate, introspection,
    /// userinfo, revocation and the gateway. Expiry is checked by the caller on every use, since a
    /// verification is remembered per token; the signing algorithms are the broker's own.
    public static func accessToken(issuer: String) -> JWTPolicy {
        JWTPolicy(use: "access token", algorithms: SigningKey.signingAlgorithms, types: ["at+jwt"], issuer: issuer,
                  requiredClaims: ["iss", "sub", "aud", "exp", "iat", "jti"], expiry: .ignored)
    }

    /// An ID token this broker issued, as `id_token_hint` at logout: an expired one still names
    /// the session (OpenID Connect RP-Initiated Logout §2), an access token never does (`typ`).
    public static func idTokenHint(issuer: String) -> JWTPolicy {
        JWTPolicy(use: "id_token_hint", algorithms: SigningKey.signingAlgorithms, types: ["JWT"], issuer: issuer,
                  requiredClaims: ["iss", "sub", "aud", "exp", "iat"], expiry: .ignored, maxLength: 8_192)
    }

    /// A software statement (RFC 7591 §2.3) signed by an app vendor's key: RS256 or ES256,
    /// `typ` absent or `JWT`, an `iss` (the configured one when set) and an unexpired `exp`.
    public static func softwareStatement(issuer: String?) -> JWTPolicy {
        JWTPolicy(use: "software statement", algorithms: [.rs256, .es256], types: ["JWT"], typeMayBeAbsent: true,
                  issuer: issuer, requiredClaims: ["iss", "exp"])
    }
}
