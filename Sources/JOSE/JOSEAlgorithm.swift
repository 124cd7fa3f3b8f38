import Foundation

/// Signature algorithms accepted on tokens issued by someone else (an upstream OpenID provider's
/// id_token). Deliberately closed: `none` and every HMAC algorithm are absent, so a token can never
/// choose "no signature" or "keyed with the public key" (the classic algorithm-confusion attacks).
public enum JOSEAlgorithm: String, Sendable, CaseIterable, Hashable {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256"
    case es256 = "ES256", es384 = "ES384"

    /// The allow-list used when the configuration names none.
    public static let defaultAllowed: Set<JOSEAlgorithm> = [.rs256, .rs384, .rs512, .ps256, .es256, .es384]

    /// The key type (`kty`) a key for this algorithm must have.
    public var keyType: String {
        switch self {
        case .rs256, .rs384, .rs512, .ps256: "RSA"
        case .es256, .es384: "EC"
        }
    }

    /// Parses an algorithm name from configuration, with a reason when it cannot be allowed.
    public static func parseAllowed(_ name: String) -> Result<JOSEAlgorithm, JOSEConfigurationError> {
        if let algorithm = JOSEAlgorithm(rawValue: name) { return .success(algorithm) }
        let upper = name.uppercased()
        if upper == "NONE" { return .failure(.init("'none' is never accepted: unsigned tokens prove nothing")) }
        if upper.hasPrefix("HS") {
            return .failure(.init("\(name) is never accepted: an HMAC key would be the provider's public key"))
        }
        let names = allCases.map(\.rawValue).joined(separator: ", ")
        return .failure(.init("unsupported algorithm '\(name)'; use one of \(names)"))
    }
}

/// Why a configured algorithm cannot be used.
public struct JOSEConfigurationError: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}
