import Foundation

/// Reads one configuration map strictly: typed getters that report wrong types and missing
/// required keys, and ``finish()`` that reports every key nobody asked for (typos must not
/// silently disable a setting, docs/configuration.md, "Checking a configuration").
public final class ConfigReader {
    public let node: ConfigNode
    public let problems: ProblemSink
    private var consumed: Set<String> = []
    private let entries: [(key: String, node: ConfigNode)]

    /// Wraps `node`; reports a problem and reads nothing when it is not a map.
    public init(_ node: ConfigNode, problems: ProblemSink) {
        self.node = node
        self.problems = problems
        switch node.value {
        case .map(let entries): self.entries = entries
        case .null: self.entries = []
        default:
            self.entries = []
            problems.add(node, "must be a map, found \(node.kindName)")
        }
    }

    /// Reads `node` with `body`, then throws every problem found (including unknown keys).
    public static func read<T>(_ node: ConfigNode, _ body: (ConfigReader) -> T) throws -> T {
        let reader = ConfigReader(node, problems: ProblemSink())
        let result = body(reader)
        reader.finish()
        try reader.problems.throwIfAny()
        return result
    }

    public func has(_ key: String) -> Bool { entries.contains { $0.key == key } }

    /// The map's keys, in the file's order (for maps keyed by the operator: languages, ids).
    public var keys: [String] { entries.map(\.key) }

    /// The raw node for `key`, marking it as read.
    public func raw(_ key: String, required: Bool = false) -> ConfigNode? {
        consumed.insert(key)
        guard let found = entries.first(where: { $0.key == key })?.node else {
            if required { problem(key, "is required") }
            return nil
        }
        if case .null = found.value {
            if required { problems.add(found, "is required but empty") }
            return nil
        }
        return found
    }

    /// Marks keys as accepted-and-ignored (Kinvey fields that mean nothing here).
    public func ignore(_ keys: String...) { keys.forEach { consumed.insert($0) } }

    public func string(_ key: String, required: Bool = false) -> String? {
        guard let found = raw(key, required: required) else { return nil }
        guard let text = found.scalar else {
            problems.add(found, "must be a string, found \(found.kindName)")
            return nil
        }
        if required && text.isEmpty { problems.add(found, "must not be empty") }
        return text
    }

    public func int(_ key: String, required: Bool = false) -> Int? {
        guard let found = raw(key, required: required) else { return nil }
        guard let text = found.scalar, let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            problems.add(found, "must be an integer")
            return nil
        }
        return value
    }

    /// A positive integer (TTLs, timeouts, sizes).
    public func positiveInt(_ key: String, required: Bool = false) -> Int? {
        guard let value = int(key, required: required) else { return nil }
        guard value > 0 else {
            problem(key, "must be a positive integer, found \(value)")
            return nil
        }
        return value
    }

    public func bool(_ key: String) -> Bool? {
        guard let found = raw(key) else { return nil }
        switch found.scalar?.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            problems.add(found, "must be true or false")
            return nil
        }
    }

    /// A list of strings; a single string is accepted as a one-element list.
    public func strings(_ key: String, required: Bool = false) -> [String]? {
        guard let found = raw(key, required: required) else { return nil }
        switch found.value {
        case .scalar(let text, _): return [text]
        case .list(let items):
            var result: [String] = []
            for item in items {
                guard let text = item.scalar else {
                    problems.add(item, "must be a string, found \(item.kindName)")
                    continue
                }
                result.append(text)
            }
            return result
        default:
            problems.add(found, "must be a list of strings")
            return nil
        }
    }

    /// A map of string to string.
    public func stringMap(_ key: String) -> [String: String]? {
        guard let found = raw(key) else { return nil }
        guard case .map(let entries) = found.value else {
            problems.add(found, "must be a map of strings")
            return nil
        }
        var result: [String: String] = [:]
        for entry in entries {
            guard let text = entry.node.scalar else {
                problems.add(entry.node, "must be a string")
                continue
            }
            result[entry.key] = text
        }
        return result
    }

    /// A nested map, read with its own reader (finished by the caller or by ``section(_:_:)``).
    public func section<T>(_ key: String, required: Bool = false, _ body: (ConfigReader) -> T) -> T? {
        guard let found = raw(key, required: required) else { return nil }
        let reader = ConfigReader(found, problems: problems)
        let result = body(reader)
        reader.finish()
        return result
    }

    /// A list of maps, each read with its own reader.
    public func list<T>(_ key: String, required: Bool = false, _ body: (ConfigReader) -> T?) -> [T]? {
        guard let found = raw(key, required: required) else { return nil }
        guard case .list(let items) = found.value else {
            problems.add(found, "must be a list, found \(found.kindName)")
            return nil
        }
        return items.compactMap { item in
            let reader = ConfigReader(item, problems: problems)
            let result = body(reader)
            reader.finish()
            return result
        }
    }

    /// An absolute URL whose scheme is one of `schemes` (any scheme when empty).
    public func url(_ key: String, required: Bool = false, schemes: Set<String> = ["http", "https"]) -> URL? {
        guard let text = string(key, required: required), let found = raw(key) else { return nil }
        guard let url = Self.absoluteURL(text, schemes: schemes) else {
            let allowed = schemes.isEmpty ? "an absolute URI" : "an absolute \(schemes.sorted().joined(separator: "/")) URL"
            problems.add(found, "must be \(allowed)")
            return nil
        }
        return url
    }

    /// Whether `text` has a fragment mark. On the bytes, not on Characters: a combining mark after
    /// `#` makes one Character of the two, which `String.contains("#")` does not find, and
    /// `URLComponents.fragment` is nil for a fragment whose escapes are not UTF-8 (`#%94`).
    public static func hasFragment(_ text: String) -> Bool {
        text.utf8.contains(UInt8(ascii: "#"))
    }

    /// Parses `text` as an absolute URI with one of `schemes` (any when empty) and, for network schemes, a host.
    public static func absoluteURL(_ text: String, schemes: Set<String>) -> URL? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let url = components.url else { return nil }
        if !schemes.isEmpty && !schemes.contains(scheme) { return nil }
        let networkSchemes: Set<String> = ["http", "https", "ldap", "ldaps", "postgres", "postgresql"]
        if networkSchemes.contains(scheme) && (components.host ?? "").isEmpty { return nil }
        return url
    }

    /// Reports a problem at `key` (or at this map when the key is absent).
    public func problem(_ key: String?, _ reason: String) {
        if let key, let found = entries.first(where: { $0.key == key })?.node {
            problems.add(found, reason)
        } else {
            let path = key.map { node.keyPath.isEmpty ? $0 : "\(node.keyPath).\($0)" } ?? node.keyPath
            problems.add(ConfigProblem(location: node.location, keyPath: path, reason: reason))
        }
    }

    /// Reports every key that no getter asked for.
    public func finish() {
        for entry in entries where !consumed.contains(entry.key) {
            problems.add(entry.node, "unknown key")
        }
        consumed.formUnion(entries.map(\.key))
    }
}
