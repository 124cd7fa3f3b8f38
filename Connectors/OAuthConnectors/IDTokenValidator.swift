import Foundation
import IdentityCore
import JOSE

/// Checks an upstream id_token (OpenID Connect Core §3.1.3.7): signature against the provider's
/// JWKS with an allowed algorithm, then `iss`, `aud`, `azp`, `exp`, `iat` and `nonce`.
struct IDTokenValidator: Sendable {
    let issuer: String
    let clientId: String
    let allowed: Set<JOSEAlgorithm>
    let skew: TimeInterval

    /// Why an id_token was refused (logged; the user sees a generic message).
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The policy an upstream id_token is verified under (docs/security.md, "One JWT policy"):
    /// the configured algorithms, `typ` absent or `JWT` (never `at+jwt` or a logout token), the
    /// provider's issuer, this client in `aud`, `sub`, `exp`, `iat`, the configured skew.
    var policy: JWTPolicy {
        JWTPolicy(use: "upstream id_token", algorithms: allowed, types: ["JWT"], typeMayBeAbsent: true, issuer: issuer,
                  audience: clientId, requiredClaims: ["iss", "sub", "aud", "exp", "iat"], skew: skew, maxLength: 32_768)
    }

    /// The verified claims.
    /// - Parameters:
    ///   - nonce: the nonce sent with the authorization request; nil where none was sent (refresh, password grant).
    ///   - expectedSubject: on refresh, the `sub` the session belongs to (OIDC Core §12.2).
    func validate(_ token: String, provider: OIDCProvider, nonce: String?, expectedSubject: String? = nil) async throws -> [String: JSONValue] {
        let policy = policy
        let claims: [String: JSONValue]
        do {
            claims = try await provider.verify(token, policy: policy)
        } catch let rejection as JWTRejection {
            throw Refusal("id_token: \(rejection)")
        }
        try check(claims, nonce: nonce, expectedSubject: expectedSubject)
        return claims
    }

    /// What the OpenID Connect rules add to the policy: `azp` with several audiences, a non-empty
    /// `sub` that does not change on refresh, the nonce.
    func check(_ claims: [String: JSONValue], nonce: String?, expectedSubject: String?) throws {
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single)?: audiences = [single]
        case .array(let many)?: audiences = many.compactMap(\.stringValue)
        default: audiences = []
        }
        let azp = claims["azp"]?.stringValue
        if audiences.count > 1 && azp == nil { throw Refusal("several audiences but no azp") }
        if let azp, azp != clientId { throw Refusal("azp names another client") }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw Refusal("sub is missing") }
        if let expectedSubject, subject != expectedSubject { throw Refusal("sub changed on refresh") }
        if let nonce {
            guard let presented = claims["nonce"]?.stringValue, Secrets.constantTimeEquals(presented, nonce) else {
                throw Refusal("nonce does not match the authorization request")
            }
        }
    }
}
