import IdentityCore

/// Merges the top-level maps of several files (docs/configuration.md, "The directory":
/// "a directory of YAML files, merged").
///
/// Lists under `organizations` and `environments` are concatenated; maps are merged key by
/// key; the same scalar set in two files is a problem naming both.
enum ConfigMerger {
    static let concatenatedKeys: Set<String> = ["organizations", "environments"]

    static func merge(_ documents: [ConfigNode], problems: ProblemSink) -> ConfigNode {
        var merged: [(key: String, node: ConfigNode)] = []
        for document in documents {
            switch document.value {
            case .null: continue
            case .map(let entries):
                for entry in entries {
                    if let index = merged.firstIndex(where: { $0.key == entry.key }) {
                        merged[index].node = combine(merged[index].node, entry.node, problems: problems)
                    } else {
                        merged.append(entry)
                    }
                }
            default:
                problems.add(document, "the top level of a configuration file must be a map")
            }
        }
        let location = documents.first?.location ?? SourceLocation(file: "console-config", line: 0)
        return ConfigNode(.map(merged), location: location, keyPath: "")
    }

    private static func combine(_ existing: ConfigNode, _ incoming: ConfigNode, problems: ProblemSink) -> ConfigNode {
        switch (existing.value, incoming.value) {
        case (.list(let a), .list(let b)) where concatenatedKeys.contains(existing.keyPath):
            return ConfigNode(.list(a + b), location: existing.location, keyPath: existing.keyPath)
        case (.map(let a), .map(let b)):
            var entries = a
            for entry in b {
                if let index = entries.firstIndex(where: { $0.key == entry.key }) {
                    entries[index].node = combine(entries[index].node, entry.node, problems: problems)
                } else {
                    entries.append(entry)
                }
            }
            return ConfigNode(.map(entries), location: existing.location, keyPath: existing.keyPath)
        case (.null, _):
            return incoming
        case (_, .null):
            return existing
        default:
            problems.add(incoming, "already set in \(existing.location)")
            return existing
        }
    }
}
