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

    /// Verifies `jwt` against the keys of `trust.jwks` (JSON text of a JWK set) under
    /// ``BrokerJWTPolicies/softwareStatement(issuer:)``: RS256 or ES256 only (never `none`), no
    /// `crit`, `typ` absent or `JWT`, a valid signature, an `iss` (equal to `trust.issuer` when one
    /// is configured), an unexpired `exp`, `nbf` and `iat` not in the future (one minute of clock
    /// skew); then a `software_id` claim (when present) equal to `softwareId`.
    public static func verify(_ jwt: String, trust: SoftwareStatementTrust, softwareId: String, now: Date) throws -> SoftwareStatement {
        let keys = PublishedKeys(set: try Self.keys(trust.jwks))
        let claims: [String: JSONValue]
        do {
            claims = try JWTVerifier.verify(jwt, keys: keys, policy: BrokerJWTPolicies.softwareStatement(issuer: trust.issuer), now: now).claims
        } catch {
            throw invalid(message(for: error))
        }
        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else { throw invalid("The software statement has no 'iss'.") }
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

    /// What the app developer reads in `error_description`: enough to fix their statement.
    static func message(for rejection: JWTRejection) -> String {
        switch rejection {
        case .malformed, .tooLong: "The software statement is not a compact JWS."
        case .algorithmNotAllowed: "The software statement must be signed with RS256 or ES256."
        case .noMatchingKey, .badSignature: "The software statement's signature does not verify with the keys of this software_id."
        case .payloadNotAnObject: "The software statement's payload is not a JSON object."
        case .missingClaim(let name): "The software statement has no '\(name)'."
        case .malformedClaim(let name): "The software statement's '\(name)' has the wrong type."
        case .wrongIssuer: "The software statement's 'iss' is not the issuer configured for this software_id."
        case .expired: "The software statement has expired."
        case .notYetValid, .issuedInTheFuture: "The software statement is not valid yet."
        case .criticalHeader, .wrongType, .nested, .wrongAudience: "The software statement is not acceptable: \(rejection)."
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
