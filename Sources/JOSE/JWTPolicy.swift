import Foundation

/// What a JWT must be to be accepted for one use (RFC 8725, JWT best current practices): the one
/// description every JWT the broker accepts is checked against — its own access tokens and ID
/// tokens (validate, introspection, `id_token_hint`), software statements, upstream id_tokens, and
/// later request objects, logout tokens, client assertions and DPoP proofs. ``JWTVerifier`` applies
/// it; each use declares its policy next to the code that uses the claims.
public struct JWTPolicy: Sendable {
    /// What the token is, for messages: "access token", "software statement", …
    public var use: String
    /// The algorithms the header's `alg` may name (never `none`, never an HMAC: ``JOSEAlgorithm``
    /// cannot express them).
    public var algorithms: Set<JOSEAlgorithm>
    /// The `typ` values accepted, compared without case and without an `application/` prefix
    /// (RFC 7515 §4.1.9). `typeMayBeAbsent` also lets a token without `typ` through.
    public var types: Set<String>
    public var typeMayBeAbsent: Bool
    /// `iss` must equal this, when set.
    public var issuer: String?
    /// `aud` (a string or an array of strings) must contain this, when set.
    public var audience: String?
    /// Claims that must be present (time claims must also be numbers).
    public var requiredClaims: Set<String>
    /// Whether `exp` in the past refuses the token. `.ignored` is for uses that accept an expired
    /// token on purpose (an `id_token_hint`) or check it themselves on every use (a cached
    /// verification of the broker's own access token); a malformed `exp` is refused either way.
    public var expiry: Expiry
    /// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
    public var skew: TimeInterval
    /// Longest token accepted, in bytes (bounded work before any signature check).
    public var maxLength: Int

    public enum Expiry: Sendable { case enforced, ignored }

    public init(use: String, algorithms: Set<JOSEAlgorithm>, types: Set<String>, typeMayBeAbsent: Bool = false,
                issuer: String? = nil, audience: String? = nil, requiredClaims: Set<String> = ["exp"],
                expiry: Expiry = .enforced, skew: TimeInterval = 60, maxLength: Int = 16_384) {
        self.use = use
        self.algorithms = algorithms
        self.types = Set(types.map(Self.normalizedType))
        self.typeMayBeAbsent = typeMayBeAbsent
        self.issuer = issuer
        self.audience = audience
        self.requiredClaims = requiredClaims
        self.expiry = expiry
        self.skew = skew
        self.maxLength = maxLength
    }

    /// `application/at+JWT` → `at+jwt`.
    static func normalizedType(_ type: String) -> String {
        let lowered = type.lowercased()
        return lowered.hasPrefix("application/") ? String(lowered.dropFirst("application/".count)) : lowered
    }

    /// The time claims, checked as numbers wherever they appear.
    static let timeClaims = ["exp", "nbf", "iat"]
    /// Claims that must be strings wherever they appear (RFC 7519 §4.1).
    static let stringClaims = ["iss", "sub", "jti"]
}
