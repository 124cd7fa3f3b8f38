import Foundation
import IdentityCore
import Yams

/// Finds and parses the YAML files of a `console-config/` directory into ``ConfigNode`` trees.
enum YAMLFiles {
    /// Every `*.yaml` / `*.yml` file under `directory`, sorted by relative path so merging is deterministic.
    static func list(in directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: directory, includingPropertiesForKeys: [.isRegularFileKey],
            options: [.skipsHiddenFiles]) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator {
            let ext = url.pathExtension.lowercased()
            if ext == "yaml" || ext == "yml" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The largest configuration file read (the largest real ones are a few KiB).
    static let maxFileBytes = 4 << 20

    /// Parses one file; problems (syntax, unresolvable references) go to `problems`.
    static func parse(file: URL, displayName: String, references: inout SecretReferences,
                      problems: ProblemSink) -> ConfigNode? {
        let read = ConfigFileReading.read(file.path, maxBytes: maxFileBytes)
        if case .failure(let failure) = read, failure != .unreadable {
            let reason = failure == .notRegularFile ? "not a regular file" : "larger than \(maxFileBytes >> 20) MiB"
            problems.add(ConfigProblem(location: .init(file: displayName, line: 0), keyPath: "", reason: reason))
            return nil
        }
        guard case .success(let data) = read, let text = String(data: data, encoding: .utf8) else {
            problems.add(ConfigProblem(location: .init(file: displayName, line: 0), keyPath: "", reason: "cannot read file as UTF-8 text"))
            return nil
        }
        let protected = references.protect(text)
        do {
            guard let root = try Yams.compose(yaml: protected) else { return nil }
            var converter = NodeConverter(file: displayName, references: references, problems: problems)
            return converter.convert(root, keyPath: "")
        } catch let error as YamlError {
            problems.add(ConfigProblem(location: .init(file: displayName, line: Self.line(of: error)),
                                       keyPath: "", reason: "invalid YAML: \(Self.summary(of: error))"))
        } catch {
            problems.add(ConfigProblem(location: .init(file: displayName, line: 0), keyPath: "", reason: "invalid YAML: \(error)"))
        }
        return nil
    }

    private static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        case .duplicatedKeysInMapping(_, let context): context.mark.line
        default: 0
        }
    }

    private static func summary(of error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _),
             .composer(let context, let problem, _, _):
            return [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        case .duplicatedKeysInMapping(let duplicates, _):
            return "duplicate keys \(duplicates.joined(separator: ", "))"
        default:
            return String(describing: error).components(separatedBy: "\n").first ?? "syntax error"
        }
    }
}

/// Converts Yams nodes to ``ConfigNode`` with key paths, resolving secret references.
private struct NodeConverter {
    let file: String
    let references: SecretReferences
    let problems: ProblemSink

    mutating func convert(_ node: Node, keyPath: String) -> ConfigNode {
        let location = SourceLocation(file: file, line: node.mark?.line ?? 0)
        switch node {
        case .scalar(let scalar):
            let isPlain = scalar.style == .plain || scalar.style == .any
            if isPlain && scalar.tag.description.hasSuffix(":null") || (isPlain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)) {
                return ConfigNode(.null, location: location, keyPath: keyPath)
            }
            let resolved = references.resolve(scalar.string)
            if let failure = resolved.failure {
                problems.add(ConfigProblem(location: location, keyPath: keyPath, reason: failure))
            }
            return ConfigNode(.scalar(resolved.text, quoted: !isPlain), location: location, keyPath: keyPath,
                              isSecret: resolved.isSecret)
        case .sequence(let sequence):
            let items = sequence.enumerated().map { index, item in convert(item, keyPath: "\(keyPath)[\(index)]") }
            return ConfigNode(.list(items), location: location, keyPath: keyPath)
        case .mapping(let mapping):
            var entries: [(key: String, node: ConfigNode)] = []
            for (key, value) in mapping {
                let name = key.scalar?.string ?? "?"
                if key.scalar == nil {
                    problems.add(ConfigProblem(location: location, keyPath: keyPath, reason: "map keys must be plain strings"))
                }
                let childPath = keyPath.isEmpty ? name : "\(keyPath).\(name)"
                entries.append((name, convert(value, keyPath: childPath)))
            }
            return ConfigNode(.map(entries), location: location, keyPath: keyPath)
        case .alias:
            problems.add(ConfigProblem(location: location, keyPath: keyPath, reason: "YAML aliases are not supported"))
            return ConfigNode(.null, location: location, keyPath: keyPath)
        }
    }
}
