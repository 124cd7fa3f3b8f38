import Foundation

/// The browser origins a client lists for CORS (`webOrigins` of an auth service, `web_origins` of
/// a registered app instance; docs/protocol.md, "Browser apps (CORS)"): exact origins, or `+` for
/// the origins of the client's http(s) redirect URIs, as Keycloak has it. One reading shared by
/// the configuration, registration and the stores, so an origin means the same everywhere.
public enum WebOrigins {
    /// The entry that stands for the origins of the client's redirect URIs.
    public static let ofRedirectURIs = "+"
    /// Origins longer than this are refused (a host name is at most 253 bytes).
    static let maximumLength = 300

    /// `text` as a browser serializes it in an `Origin` header (RFC 6454 §6.2): scheme and host
    /// lowercased, the port only when it is not the scheme's default; or why it is not an origin.
    /// Only `scheme://host[:port]`: no path (not even `/`), query, fragment or user, and no `*`
    /// anywhere (origins are listed one by one), nor `null` (sandboxed pages and files share it).
    public static func normalized(_ text: String) -> Result<String, OriginProblem> {
        if text.contains("*") {
            return .failure(OriginProblem("'\(text)': wildcards are not supported; list each origin exactly (scheme://host[:port])"))
        }
        if text == "null" { return .failure(OriginProblem("'null' is the origin of sandboxed pages and files, and is never allowed")) }
        guard text.utf8.count <= maximumLength, let separator = text.range(of: "://") else {
            return .failure(OriginProblem("'\(text)' is not an origin (scheme://host[:port])"))
        }
        let scheme = text[..<separator.lowerBound].lowercased()
        let authority = text[separator.upperBound...]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            return .failure(OriginProblem("'\(text)' has no valid scheme (scheme://host[:port])"))
        }
        if authority.contains(where: { "/?#@\\".contains($0) || $0.isWhitespace }) {
            return .failure(OriginProblem("'\(text)' must be only scheme://host[:port], with no path (not even '/'), query, fragment or user"))
        }
        guard let (host, port) = hostAndPort(authority) else {
            return .failure(OriginProblem("'\(text)' has no valid host (letters, digits, '-' and '.', an IP address, or [IPv6]; "
                                          + "an international name in its xn-- form) or port"))
        }
        var origin = "\(scheme)://\(host)"
        if let port, port != defaultPort(scheme) { origin += ":\(port)" }
        return .success(origin)
    }

    /// The origin of an http(s) redirect URI; nil for any other (a custom scheme has no web origin).
    public static func origin(ofRedirectURI uri: String) -> String? {
        guard let separator = uri.range(of: "://") else { return nil }
        let scheme = uri[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var authority = uri[separator.upperBound...].prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard case .success(let origin) = normalized("\(scheme)://\(authority)") else { return nil }
        return origin
    }

    /// The exact origins `entries` allow: each normalized, `+` replaced by the origins of
    /// `redirectURIs`, without repeats. Entries that are not origins are left out (configuration
    /// and registration refuse them before they are stored).
    public static func expand(_ entries: [String], redirectURIs: [String]) -> [String] {
        var seen: Set<String> = []
        var origins: [String] = []
        for entry in entries {
            let found: [String]
            if entry == ofRedirectURIs {
                found = redirectURIs.compactMap(origin(ofRedirectURI:))
            } else if case .success(let origin) = normalized(entry) {
                found = [origin]
            } else {
                found = []
            }
            for origin in found where seen.insert(origin).inserted { origins.append(origin) }
        }
        return origins
    }

    /// `host[:port]` or `[ipv6][:port]`, the host lowercased; nil when either part is malformed.
    static func hostAndPort(_ authority: Substring) -> (host: String, port: Int?)? {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
            let inside = host.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else { return nil }
        }
        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let value = Int(portText),
                  (1...65535).contains(value) else { return nil }
            port = value
        }
        return (host.lowercased(), port)
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}

/// Why a `webOrigins` entry is not an origin, in words for `config check` and registration errors.
public struct OriginProblem: Error, Equatable, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}
