import Foundation
import IdentityCore

/// Request parameters of an OAuth endpoint (query or form). RFC 6749 §3.1/§3.2: a parameter
/// sent twice is an error, and one sent without a value counts as absent.
public struct OAuthParameters: Sendable {
    public static let maxValueLength = 8_192
    private var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    /// Builds from decoded pairs, refusing repeats and values over `maxValueLength` bytes (the
    /// SAML ACS allows more: a signed, encrypted Response runs to tens of kilobytes).
    public init(pairs: [(String, String)], maxValueLength: Int = Self.maxValueLength) throws {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            if values[name] != nil {
                throw OAuthError.invalidRequest("The parameter '\(Self.printable(name))' was sent more than once.")
            }
            if value.utf8.count > maxValueLength {
                throw OAuthError.invalidRequest("The parameter '\(Self.printable(name))' is too long.")
            }
            values[name] = value
        }
        self.values = values
    }

    /// The value, or nil when absent or empty.
    public subscript(name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    public func require(_ name: String) throws -> String {
        guard let value = self[name] else { throw OAuthError.invalidRequest("The parameter '\(name)' is required.") }
        return value
    }

    public var names: [String] { Array(values.keys) }

    /// A parameter name made safe to echo in an error message.
    static func printable(_ name: String) -> String {
        String(name.prefix(64).filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
    }
}
