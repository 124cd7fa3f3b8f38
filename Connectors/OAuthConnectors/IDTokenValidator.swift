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
    let clock: any BrokerClock

    /// Why an id_token was refused (logged; the user sees a generic message).
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The verified claims.
    /// - Parameters:
    ///   - nonce: the nonce sent with the authorization request; nil where none was sent (refresh, password grant).
    ///   - expectedSubject: on refresh, the `sub` the session belongs to (OIDC Core §12.2).
    func validate(_ token: String, provider: OIDCProvider, nonce: String?, expectedSubject: String? = nil) async throws -> [String: JSONValue] {
        guard let parsed = CompactJWS.decode(token, maxLength: 32_768) else { throw Refusal("the id_token is not a compact JWS") }
        do {
            _ = try parsed.allowedAlgorithm(allowed)
            let keys = try await provider.keys(for: parsed.keyId)
            try parsed.verify(with: keys, allowed: allowed)
        } catch let failure as CompactJWS.Parts.Failure {
            throw Refusal("id_token signature: \(failure)")
        }
        guard let claims = parsed.claims else { throw Refusal("the id_token payload is not a JSON object") }
        try check(claims, nonce: nonce, expectedSubject: expectedSubject)
        return claims
    }

    func check(_ claims: [String: JSONValue], nonce: String?, expectedSubject: String?) throws {
        guard claims["iss"]?.stringValue == issuer else {
            throw Refusal("iss is \(claims["iss"]?.stringValue ?? "missing"), expected \(issuer)")
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single)?: audiences = [single]
        case .array(let many)?: audiences = many.compactMap(\.stringValue)
        default: audiences = []
        }
        guard audiences.contains(clientId) else { throw Refusal("aud does not contain the client id") }
        let azp = claims["azp"]?.stringValue
        if audiences.count > 1 && azp == nil { throw Refusal("several audiences but no azp") }
        if let azp, azp != clientId { throw Refusal("azp names another client") }
        let now = clock.now().timeIntervalSince1970
        guard let exp = Self.number(claims["exp"]) else { throw Refusal("exp is missing") }
        guard exp + skew > now else { throw Refusal("the id_token expired") }
        guard let iat = Self.number(claims["iat"]) else { throw Refusal("iat is missing") }
        guard iat - skew <= now else { throw Refusal("iat is in the future") }
        if let nbf = Self.number(claims["nbf"]), nbf - skew > now { throw Refusal("the id_token is not valid yet") }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw Refusal("sub is missing") }
        if let expectedSubject, subject != expectedSubject { throw Refusal("sub changed on refresh") }
        if let nonce {
            guard let presented = claims["nonce"]?.stringValue, Secrets.constantTimeEquals(presented, nonce) else {
                throw Refusal("nonce does not match the authorization request")
            }
        }
    }

    static func number(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .int(let number)?: TimeInterval(number)
        case .double(let number)?: number
        default: nil
        }
    }
}
