import Foundation
import IdentityCore

/// Where the keys that may verify a token come from: a JWKS (an upstream provider's, a software
/// statement's trust), or the broker's own key ring.
public protocol JWSKeySource: Sendable {
    /// Keys that may verify a token whose header names `kid` and `algorithm`.
    func candidates(kid: String?, algorithm: JOSEAlgorithm) -> [JSONWebKey]
}

extension JSONWebKeySet: JWSKeySource {}

extension SigningKeyRing: JWSKeySource {
    /// The broker's own tokens always name their key: the key of that `kid`, and only for the
    /// algorithm it signs with.
    public func candidates(kid: String?, algorithm: JOSEAlgorithm) -> [JSONWebKey] {
        guard let kid, let key = verificationKeys[kid], key.algorithm == algorithm.rawValue else { return [] }
        return [key]
    }
}

/// A JWT that passed its ``JWTPolicy``: header, claims and the algorithm that verified it.
public struct VerifiedJWT: Sendable {
    public let header: [String: JSONValue]
    public let claims: [String: JSONValue]
    public let payload: Data
    public let algorithm: JOSEAlgorithm
}

/// Verifies JWTs against a ``JWTPolicy``, in an order that spends nothing on a token that fails a
/// cheap check: length, structure, header (`alg` allowed, no `crit`, `typ`, not nested), then the
/// signature with a key the header selects (the key never chooses the algorithm), then the
/// claims (`iss`, `aud`, required claims, `exp`, `nbf`, `iat` with the policy's skew).
///
/// Two steps for callers whose keys depend on the header (an upstream JWKS fetched again for an
/// unknown `kid`): ``checkHeader(_:policy:)``, then ``verify(_:keys:policy:now:)``.
public enum JWTVerifier {
    /// The whole check.
    public static func verify(_ token: String, keys: some JWSKeySource, policy: JWTPolicy, now: Date) throws(JWTRejection) -> VerifiedJWT {
        try verify(try checkHeader(token, policy: policy), keys: keys, policy: policy, now: now)
    }

    /// A decoded token whose header the policy allows (nothing verified yet), with its algorithm.
    public static func checkHeader(_ token: String, policy: JWTPolicy) throws(JWTRejection) -> (parts: CompactJWS.Parts, algorithm: JOSEAlgorithm) {
        guard token.utf8.count <= policy.maxLength else { throw .tooLong(limit: policy.maxLength) }
        guard let parts = CompactJWS.decode(token, maxLength: policy.maxLength) else { throw .malformed }
        let name = parts.algorithm ?? ""
        guard let algorithm = JOSEAlgorithm(rawValue: name), policy.algorithms.contains(algorithm) else {
            throw .algorithmNotAllowed(name)
        }
        try checkHeaderFields(parts, policy: policy)
        return (parts, algorithm)
    }

    /// `crit`, `typ` and `cty`, whatever the algorithm (``SharedSecretJWT`` checks them too).
    static func checkHeaderFields(_ parts: CompactJWS.Parts, policy: JWTPolicy) throws(JWTRejection) {
        if parts.header["crit"] != nil { throw .criticalHeader }
        switch parts.header["typ"] {
        case nil: if !policy.typeMayBeAbsent { throw .wrongType(nil) }
        case .string(let type)?: if !policy.types.contains(JWTPolicy.normalizedType(type)) { throw .wrongType(type) }
        default: throw .wrongType(nil)
        }
        if let contentType = parts.header["cty"] {
            guard let text = contentType.stringValue, JWTPolicy.normalizedType(text) != "jwt" else { throw .nested }
        }
    }

    /// The signature and the claims of a token whose header ``checkHeader(_:policy:)`` allowed.
    public static func verify(_ checked: (parts: CompactJWS.Parts, algorithm: JOSEAlgorithm), keys: some JWSKeySource,
                              policy: JWTPolicy, now: Date) throws(JWTRejection) -> VerifiedJWT {
        let (parts, algorithm) = checked
        let candidates = keys.candidates(kid: parts.keyId, algorithm: algorithm)
        guard !candidates.isEmpty else { throw .noMatchingKey(kid: parts.keyId) }
        guard candidates.contains(where: { $0.verify(parts.signature, over: parts.signingInput, algorithm: algorithm) }) else {
            throw .badSignature
        }
        guard case .object(let claims)? = JSONValue(parsing: parts.payload) else { throw .payloadNotAnObject }
        try checkClaims(claims, policy: policy, now: now.timeIntervalSince1970)
        return VerifiedJWT(header: parts.header, claims: claims, payload: parts.payload, algorithm: algorithm)
    }

    static func checkClaims(_ claims: [String: JSONValue], policy: JWTPolicy, now: TimeInterval) throws(JWTRejection) {
        for name in policy.requiredClaims where claims[name] == nil || claims[name] == .null { throw .missingClaim(name) }
        for name in JWTPolicy.stringClaims {
            if let value = claims[name], value.stringValue == nil { throw .malformedClaim(name) }
        }
        var times: [String: TimeInterval] = [:]
        for name in JWTPolicy.timeClaims {
            guard let value = claims[name] else { continue }
            guard let number = value.numberValue else { throw .malformedClaim(name) }
            times[name] = number
        }
        if let issuer = policy.issuer {
            guard let presented = claims["iss"] else { throw .missingClaim("iss") }
            guard presented.stringValue == issuer else { throw .wrongIssuer }
        }
        if let audience = policy.audience {
            switch claims["aud"] {
            case .string(let one)?: guard one == audience else { throw .wrongAudience }
            case .array(let many)?: guard many.contains(.string(audience)) else { throw .wrongAudience }
            case nil: throw .missingClaim("aud")
            default: throw .malformedClaim("aud")
            }
        }
        if policy.expiry == .enforced, let exp = times["exp"], exp + policy.skew <= now { throw .expired }
        if let notBefore = times["nbf"], notBefore - policy.skew > now { throw .notYetValid }
        if let issuedAt = times["iat"], issuedAt - policy.skew > now { throw .issuedInTheFuture }
    }
}

extension JSONValue {
    /// An integer or a fraction, as seconds (time claims, a DPoP proof's `iat`).
    public var numberValue: TimeInterval? {
        switch self {
        case .int(let number): TimeInterval(number)
        case .double(let number): number
        default: nil
        }
    }
}
