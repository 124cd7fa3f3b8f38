/// Where a configuration value came from, for error messages.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { line > 0 ? "\(file):\(line)" : file }

    /// Where configuration built in code (tests), not read from a file, is said to come from.
    public static let builtInCode = SourceLocation(file: "(built in code)", line: 0)
}

/// A parsed configuration value with its location and key path. Secret references
/// (`${env:}`, `${file:}`) are already resolved; `isSecret` marks values that came from one.
public struct ConfigNode: Sendable {
    public indirect enum Value: Sendable {
        case scalar(String, quoted: Bool)
        case list([ConfigNode])
        case map([(key: String, node: ConfigNode)])
        case null
    }

    public var value: Value
    public var location: SourceLocation
    /// Dotted key path from the top of the merged configuration, e.g. `environments[0].authServices[1].grantTtl`.
    public var keyPath: String
    public var isSecret: Bool

    public init(_ value: Value, location: SourceLocation, keyPath: String, isSecret: Bool = false) {
        self.value = value
        self.location = location
        self.keyPath = keyPath
        self.isSecret = isSecret
    }

    /// The entry for `key` when this node is a map.
    public subscript(key: String) -> ConfigNode? {
        guard case .map(let entries) = value else { return nil }
        return entries.first { $0.key == key }?.node
    }

    public var scalar: String? {
        if case .scalar(let text, _) = value { return text }
        return nil
    }

    public var kindName: String {
        switch value {
        case .scalar: "a scalar"
        case .list: "a list"
        case .map: "a map"
        case .null: "empty"
        }
    }
}

/// One thing wrong with the configuration: file, key path and reason.
public struct ConfigProblem: Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    public var keyPath: String
    public var reason: String

    public init(location: SourceLocation, keyPath: String, reason: String) {
        self.location = location
        self.keyPath = keyPath
        self.reason = reason
    }

    public var description: String { "\(location): \(keyPath.isEmpty ? "(top level)" : keyPath): \(reason)" }
}

/// Every problem found while reading a configuration.
public struct ConfigProblems: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public init(_ problems: [ConfigProblem]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Collects problems while a configuration is read, so that one run reports all of them.
public final class ProblemSink {
    public private(set) var problems: [ConfigProblem] = []

    public init() {}

    public func add(_ problem: ConfigProblem) { problems.append(problem) }

    public func add(_ node: ConfigNode, _ reason: String) {
        add(ConfigProblem(location: node.location, keyPath: node.keyPath, reason: reason))
    }

    public func append(contentsOf other: [ConfigProblem]) { problems.append(contentsOf: other) }

    public var isEmpty: Bool { problems.isEmpty }

    /// Throws ``ConfigProblems`` when anything was reported.
    public func throwIfAny() throws {
        if !problems.isEmpty { throw ConfigProblems(problems) }
    }
}

extension ConfigNode {
    /// The node as JSON (for values passed through as they are, like app-association files).
    /// Unquoted scalars become booleans, numbers or null where YAML would read them so; quoted
    /// ones stay strings.
    public var jsonValue: JSONValue {
        switch value {
        case .null: return .null
        case .list(let items): return .array(items.map(\.jsonValue))
        case .map(let entries): return .object(Dictionary(entries.map { ($0.key, $0.node.jsonValue) }, uniquingKeysWith: { _, last in last }))
        case .scalar(let text, let quoted):
            if quoted { return .string(text) }
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null", "~": return .null
            default:
                if let integer = Int64(text) { return .int(integer) }
                if let number = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return .double(number) }
                return .string(text)
            }
        }
    }
}
