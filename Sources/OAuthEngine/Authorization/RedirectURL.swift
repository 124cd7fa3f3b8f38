import Foundation
import IdentityCore

/// Builds redirect URLs back to a client.
public enum RedirectURL {
    public static func encode(_ value: String) -> String {
        PercentEncoding.unreserved(value)
    }

    /// Appends `parameters` (nil values skipped) to `base`'s query, after any query it already
    /// has, in the order given. Callers put `code` last: the Android SDK reads everything after `code=`.
    public static func build(_ base: String, _ parameters: [(String, String?)]) -> String {
        let query = parameters.compactMap { name, value in value.map { "\(name)=\(encode($0))" } }.joined(separator: "&")
        guard !query.isEmpty else { return base }
        // Bytes: a combining mark after `?` makes a Character that is not "?".
        return base + (base.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + query
    }
}

extension RedirectURL {
    /// RFC 6749 §3.1.2.3 / RFC 3986 §6.2.1 simple string comparison: the same bytes. Swift's `==`
    /// on strings treats canonically equivalent Unicode as equal (a precomposed `é` equals `e` +
    /// combining accent), which would let a redirect URI the client never registered match.
    public static func same(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8)
    }

    /// Whether `uri` is one of `registered`, byte for byte.
    public static func isRegistered(_ uri: String, in registered: [String]) -> Bool {
        registered.contains { same($0, uri) }
    }
}
