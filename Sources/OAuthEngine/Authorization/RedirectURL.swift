import Foundation

/// Builds redirect URLs back to a client.
public enum RedirectURL {
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// Appends `parameters` (nil values skipped) to `base`'s query, after any query it already
    /// has, in the order given. Callers put `code` last: the Android SDK reads everything after `code=`.
    public static func build(_ base: String, _ parameters: [(String, String?)]) -> String {
        let query = parameters.compactMap { name, value in value.map { "\(name)=\(encode($0))" } }.joined(separator: "&")
        guard !query.isEmpty else { return base }
        return base + (base.contains("?") ? "&" : "?") + query
    }
}
