import Foundation

/// Why ``JWTVerifier`` refused a token: for logs and tests. Callers answer their own generic error
/// (`invalid_token`, `invalid_software_statement`, …) and never echo the detail to the sender.
public enum JWTRejection: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed
    case tooLong(limit: Int)
    case algorithmNotAllowed(String)
    /// A `crit` header: RFC 7515 §4.1.11 says extensions a recipient does not understand must
    /// refuse the token, and the broker understands none.
    case criticalHeader
    case wrongType(String?)
    /// `cty: JWT`: a JWT inside a JWT, which no use here accepts (RFC 8725 §2.8).
    case nested
    case noMatchingKey(kid: String?)
    case badSignature
    case payloadNotAnObject
    case missingClaim(String)
    case malformedClaim(String)
    case wrongIssuer
    case wrongAudience
    case expired
    case notYetValid
    case issuedInTheFuture

    public var description: String {
        switch self {
        case .malformed: "not a compact JWS"
        case .tooLong(let limit): "longer than \(limit) bytes"
        case .algorithmNotAllowed(let name): "algorithm '\(name)' is not allowed"
        case .criticalHeader: "it has critical header extensions (crit)"
        case .wrongType(let type): "typ '\(type ?? "(none)")' is not expected here"
        case .nested: "it is a nested JWT (cty JWT)"
        case .noMatchingKey(let kid): "no key \(kid.map { "with kid '\($0)' " } ?? "")fits it"
        case .badSignature: "the signature does not verify"
        case .payloadNotAnObject: "the payload is not a JSON object"
        case .missingClaim(let name): "the '\(name)' claim is missing"
        case .malformedClaim(let name): "the '\(name)' claim has the wrong type"
        case .wrongIssuer: "iss is not the expected issuer"
        case .wrongAudience: "aud does not name the expected audience"
        case .expired: "it has expired"
        case .notYetValid: "it is not valid yet (nbf)"
        case .issuedInTheFuture: "it was issued in the future (iat)"
        }
    }
}
