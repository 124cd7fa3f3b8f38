import Foundation
import IdentityCore

/// Request parameters of an OAuth endpoint (query or form). RFC 6749 §3.1/§3.2: a parameter
/// sent twice is an error — except `resource` (RFC 8707), which names one target per occurrence —
/// and one sent without a value counts as absent.
public struct OAuthParameters: Sendable {
    public static let maxValueLength = 8_192
    /// Occurrences of `resource` kept at most.
    public static let maxResources = 16
    private var values: [String: String]
    /// Every `resource` value, in order.
    public private(set) var resources: [String] = []

    public init(_ values: [String: String] = [:], resources: [String] = []) {
        self.values = values
        self.resources = resources
    }

    /// Builds from decoded pairs, refusing repeats and values over `maxValueLength` bytes (the
    /// SAML ACS allows more: a signed, encrypted Response runs to tens of kilobytes).
    public init(pairs: [(String, String)], maxValueLength: Int = Self.maxValueLength) throws {
        var values: [String: String] = [:]
        var resources: [String] = []
        for (name, value) in pairs {
            if name == "resource" {
                guard value.utf8.count <= maxValueLength, resources.count < Self.maxResources else {
                    throw OAuthError.invalidRequest("Too many or too long 'resource' parameters.")
                }
                if !value.isEmpty { resources.append(value) }
                values[name] = value
                continue
            }
            if values[name] != nil {
                throw OAuthError.invalidRequest("The parameter '\(Self.printable(name))' was sent more than once.")
            }
            if value.utf8.count > maxValueLength {
                throw OAuthError.invalidRequest("The parameter '\(Self.printable(name))' is too long.")
            }
            values[name] = value
        }
        self.values = values
        self.resources = resources
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

    /// Every parameter as a name–value pair, `resource` once per value: what `init(pairs:)` reads.
    public var pairs: [(String, String)] {
        values.filter { $0.key != "resource" }.map { ($0.key, $0.value) } + resources.map { ("resource", $0) }
    }

    /// A parameter name made safe to echo in an error message.
    static func printable(_ name: String) -> String {
        String(name.prefix(64).filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
    }
}
