import Crypto
import Foundation
import IdentityCore

/// JWTs keyed with a shared secret (HS256) — used for one thing only: a client proving it knows
/// its own secret (RFC 7523 `client_secret_jwt`, OpenID Connect Core §9). Kept apart from
/// ``JWTVerifier`` on purpose: ``JOSEAlgorithm`` cannot name an HMAC, so no token verified
/// against a JWK set or the broker's key ring can ever be checked with a key used as an HMAC
/// secret (the algorithm-confusion attack); here the secret comes from the configuration and
/// the algorithm is fixed, whatever the header says.
public enum SharedSecretJWT {
    /// The only algorithm accepted.
    public static let algorithm = "HS256"

    /// Checks `token`'s header (`alg` HS256 exactly, no `crit`, the policy's `typ`, not nested),
    /// its HMAC-SHA256 against `secret` (compared in constant time), then its claims as
    /// ``JWTVerifier`` does (`policy.algorithms` is not consulted). Returns the claims.
    public static func verify(_ token: String, secret: some DataProtocol, policy: JWTPolicy,
                              now: Date) throws(JWTRejection) -> [String: JSONValue] {
        guard token.utf8.count <= policy.maxLength else { throw .tooLong(limit: policy.maxLength) }
        guard let parts = CompactJWS.decode(token, maxLength: policy.maxLength) else { throw .malformed }
        guard let name = parts.algorithm, name == algorithm else { throw .algorithmNotAllowed(parts.algorithm ?? "") }
        try JWTVerifier.checkHeaderFields(parts, policy: policy)
        let key = SymmetricKey(data: Data(secret))
        guard HMAC<SHA256>.isValidAuthenticationCode(parts.signature, authenticating: parts.signingInput, using: key) else {
            throw .badSignature
        }
        guard case .object(let claims)? = JSONValue(parsing: parts.payload) else { throw .payloadNotAnObject }
        try JWTVerifier.checkClaims(claims, policy: policy, now: now.timeIntervalSince1970)
        return claims
    }

    /// Signs `claims` (JSON bytes) with HS256 under `secret`: for tests and example clients.
    public static func sign(payload: Data, secret: some DataProtocol, type: String = "JWT") -> String {
        let header = #"{"alg":"HS256","typ":"\#(type)"}"#
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret)))
        return input + "." + Base64URL.encode(Data(mac))
    }
}
