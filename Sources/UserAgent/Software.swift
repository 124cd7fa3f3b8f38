/// A named piece of software with an optional version, such as a browser or an operating system.
///
/// ``description`` joins them the way Blitz Identity Provider shows them ("Chrome 120",
/// "macOS 10.15.7", "Windows 10"), which is what its `browser` and `os` fields carry.
public struct Software: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The product name, such as "Chrome", "Samsung Internet", "iPadOS".
    public let name: String
    /// The version as it is shown (already trimmed to the significant components), or nil if unknown.
    public let version: String?

    public init(name: String, version: String? = nil) {
        self.name = name
        self.version = version
    }

    /// "name version", or just the name when the version is unknown.
    public var description: String {
        guard let version else { return name }
        return "\(name) \(version)"
    }
}

/// Reading versions and names out of User-Agent text without trusting it.
enum VersionText {
    /// The leading numeric components of `raw` ("120.0.6099.71" → "120" for 1 component,
    /// "10_15_7" → "10.15.7" for 3), with `_` read as `.`; nil unless `raw` starts with a digit.
    /// Each component is capped at 9 digits so hostile input cannot produce a huge string.
    static func numeric(_ raw: some StringProtocol, components limit: Int) -> String? {
        var parts: [String] = []
        var current = ""
        for character in raw {
            if character.isASCII, character.isNumber {
                guard current.count < 9 else { break }
                current.append(character)
            } else if character == "." || character == "_" {
                guard !current.isEmpty else { break }
                parts.append(current)
                current = ""
                if parts.count == limit { break }
            } else {
                break
            }
        }
        if !current.isEmpty && parts.count < limit { parts.append(current) }
        guard !parts.isEmpty else { return nil }
        return parts.joined(separator: ".")
    }

    /// `raw` if it is a plausible product name or version: 1 to `maximumLength` characters from
    /// `[A-Za-z0-9._+-]` (a name must start with a letter); nil otherwise.
    static func token(_ raw: some StringProtocol, maximumLength: Int = 32, isName: Bool = false) -> String? {
        guard !raw.isEmpty, raw.count <= maximumLength else { return nil }
        if isName, let first = raw.first, !(first.isASCII && first.isLetter) { return nil }
        for character in raw {
            guard character.isASCII,
                character.isLetter || character.isNumber || ".-_+".contains(character)
            else { return nil }
        }
        return String(raw)
    }
}
