import Foundation

/// A compact JWS (RFC 7515 §7.1) whose signature is yet to be checked: the header tells which
/// key and algorithm it claims, ``verify(with:allowed:)`` decides.
public struct SignedToken: Sendable {
    public let header: [String: JSONValue]
    public let payload: Data
    let signingInput: Data
    let signature: Data

    public var algorithmName: String? { header["alg"]?.stringValue }
    public var keyId: String? { header["kid"]?.stringValue }

    /// Splits and decodes a compact JWS; nil for anything malformed (part count, base64url, a
    /// header that is not a JSON object, more than `maxLength` characters).
    public init?(compact token: String, maxLength: Int = 32_768) {
        guard token.utf8.count <= maxLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(String(parts[0])),
              let payload = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2])),
              case .object(let header)? = JSONValue(parsing: headerData) else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }

    /// Why a signature check failed (for logs; callers show one generic message).
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case algorithmNotAllowed(String)
        case noMatchingKey(kid: String?)
        case badSignature
        case criticalHeader

        public var description: String {
            switch self {
            case .algorithmNotAllowed(let name): "algorithm '\(name)' is not allowed"
            case .noMatchingKey(let kid): "no key \(kid.map { "with kid '\($0)' " } ?? "")fits the token"
            case .badSignature: "the signature does not verify"
            case .criticalHeader: "the token has critical header extensions"
            }
        }
    }

    /// The algorithm the header names, when it is on `allowed` (never `none`, never HS*).
    public func allowedAlgorithm(_ allowed: Set<JOSEAlgorithm>) throws(Failure) -> JOSEAlgorithm {
        let name = algorithmName ?? ""
        guard let algorithm = JOSEAlgorithm(rawValue: name), allowed.contains(algorithm) else {
            throw .algorithmNotAllowed(name)
        }
        return algorithm
    }

    /// Verifies the signature with a key of `keys` chosen by `kid` and algorithm.
    /// Only the header's `alg` is used when it is allowed; a key never chooses the algorithm.
    public func verify(with keys: JSONWebKeySet, allowed: Set<JOSEAlgorithm>) throws(Failure) {
        let algorithm = try allowedAlgorithm(allowed)
        // RFC 7515 §4.1.11: extensions we do not understand must not be ignored.
        if header["crit"] != nil { throw .criticalHeader }
        let candidates = keys.candidates(kid: keyId, algorithm: algorithm)
        guard !candidates.isEmpty else { throw .noMatchingKey(kid: keyId) }
        guard candidates.contains(where: { $0.verify(signature, over: signingInput, algorithm: algorithm) }) else {
            throw .badSignature
        }
    }

    /// The payload as a JSON object (claims), nil when it is not one.
    public var claims: [String: JSONValue]? {
        guard case .object(let claims)? = JSONValue(parsing: payload) else { return nil }
        return claims
    }
}
