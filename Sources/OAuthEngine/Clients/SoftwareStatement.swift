import Foundation
import IdentityConfig
import IdentityCore
import JOSE

/// A verified software statement (RFC 7591 §2.3): the claims that fix what an instance may do.
public struct SoftwareStatement: Sendable {
    public var issuer: String
    public var redirectURIs: [String]
    public var scope: String
    public var grantTypes: [String]
    /// The browser origins (normalized) an instance may list in `web_origins` besides `+`: the
    /// statement's `web_origins` claim; none when it has none.
    public var webOrigins: [String] = []

    /// Grant types an instance may be given; anything else in a statement is refused.
    static let allowedGrantTypes: Set<String> = ["authorization_code", "refresh_token", "client_credentials"]

    /// Verifies `jwt` against the keys of `trust.jwks` (JSON text of a JWK set): RS256 or ES256
    /// only (never `none`), a valid signature, an `iss` (equal to `trust.issuer` when one is
    /// configured), an `exp` in the future and no `nbf` in the future at `now` (one minute of
    /// clock skew), and a `software_id` claim (when present) equal to `softwareId`.
    public static func verify(_ jwt: String, trust: SoftwareStatementTrust, softwareId: String, now: Date) throws -> SoftwareStatement {
        let keys = try Self.keys(trust.jwks)
        guard let parts = CompactJWS.decode(jwt) else { throw invalid("The software statement is not a compact JWS.") }
        guard let algorithm = try? parts.allowedAlgorithm(allowedAlgorithms) else {
            throw invalid("The software statement must be signed with RS256 or ES256.")
        }
        // A key without a kid in the trusted set matches whatever kid the statement names.
        let candidates = keys.keys.filter { $0.fits(algorithm) && (parts.keyId == nil || $0.kid == nil || $0.kid == parts.keyId) }
        guard candidates.contains(where: { $0.verify(parts.signature, over: parts.signingInput, algorithm: algorithm) }) else {
            throw invalid("The software statement's signature does not verify with the keys of this software_id.")
        }
        guard case .object(let claims)? = JSONValue(parsing: parts.payload) else {
            throw invalid("The software statement's payload is not a JSON object.")
        }
        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else { throw invalid("The software statement has no 'iss'.") }
        guard let exp = claims["exp"].flatMap(Self.number) else { throw invalid("The software statement has no 'exp'.") }
        if let expected = trust.issuer, issuer != expected {
            throw invalid("The software statement's 'iss' is not the issuer configured for this software_id.")
        }
        guard exp > now.timeIntervalSince1970 else { throw invalid("The software statement has expired.") }
        if let notBefore = claims["nbf"] {
            guard let value = Self.number(notBefore) else { throw invalid("The software statement's 'nbf' must be a number.") }
            guard value <= now.timeIntervalSince1970 + 60 else { throw invalid("The software statement is not valid yet.") }
        }
        if let claimed = claims["software_id"], claimed.stringValue != softwareId {
            throw invalid("The software statement belongs to another software_id.")
        }
        let redirectURIs = try strings(claims["redirect_uris"], "redirect_uris")
        guard !redirectURIs.isEmpty else { throw invalid("The software statement names no redirect_uris.") }
        var grantTypes = try strings(claims["grant_types"], "grant_types")
        if grantTypes.isEmpty { grantTypes = ["authorization_code", "refresh_token", "client_credentials"] }
        guard grantTypes.allSatisfy(allowedGrantTypes.contains) else {
            throw invalid("The software statement names a grant type instances cannot have.")
        }
        let webOrigins = try strings(claims["web_origins"], "web_origins").map { entry in
            switch WebOrigins.normalized(entry) {
            case .success(let origin): return origin
            case .failure(let problem): throw invalid("The software statement's web_origins: \(problem.reason).")
            }
        }
        return SoftwareStatement(issuer: issuer, redirectURIs: redirectURIs,
                                 scope: claims["scope"]?.stringValue ?? "openid", grantTypes: grantTypes, webOrigins: webOrigins)
    }

    private static func invalid(_ text: String) -> OAuthError { OAuthError(.invalidSoftwareStatement, text) }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    private static func strings(_ value: JSONValue?, _ name: String) throws -> [String] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw invalid("The software statement's '\(name)' must be an array.") }
        return try items.map { item in
            guard let text = item.stringValue else { throw invalid("The software statement's '\(name)' must hold strings.") }
            return text
        }
    }

    /// Algorithms a software statement may be signed with.
    static let allowedAlgorithms: Set<JOSEAlgorithm> = [.rs256, .es256]

    /// The signature keys of a JWK set; none at all is a server-side problem.
    static func keys(_ jwks: String) throws -> JSONWebKeySet {
        guard let set = JSONWebKeySet(parsing: Data(jwks.utf8)) else {
            throw OAuthError.internalFailure("software statement JWKS is not a JWK set")
        }
        guard set.keys.contains(where: { $0.fits(.rs256) || $0.fits(.es256) }) else {
            throw OAuthError.internalFailure("software statement JWKS holds no usable key")
        }
        return set
    }
}
