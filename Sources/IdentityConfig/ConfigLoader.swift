import Foundation
import IdentityCore

/// Loads and checks a `console-config/` directory. Every problem is collected and thrown
/// together as ``ConfigProblems`` so `idconnect config check` can print them all.
public struct ConfigLoader: Sendable {
    public var environment: [String: String]
    /// Storage schemes this build can open (`sqlite`, and `postgres` when linked).
    public var supportedStorageSchemes: Set<String>

    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                supportedStorageSchemes: Set<String> = ["sqlite"]) {
        self.environment = environment
        self.supportedStorageSchemes = supportedStorageSchemes
    }

    public func load(directory path: String) throws -> BrokerConfig {
        let (config, problems) = try loadCollectingProblems(directory: path)
        if !problems.isEmpty { throw ConfigProblems(problems) }
        return config
    }

    /// Like ``load(directory:)`` but returns what could be read together with the problems, so
    /// later checks (connector options) can add theirs to the same report.
    public func loadCollectingProblems(directory path: String) throws -> (BrokerConfig, [ConfigProblem]) {
        let directory = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        let problems = ProblemSink()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigProblems([ConfigProblem(location: .init(file: path, line: 0), keyPath: "",
                                                reason: "configuration directory does not exist")])
        }
        let files = YAMLFiles.list(in: directory)
        if files.isEmpty {
            throw ConfigProblems([ConfigProblem(location: .init(file: path, line: 0), keyPath: "",
                                                reason: "no .yaml or .yml files found")])
        }
        var references = SecretReferences(environment: environment, baseDirectory: directory)
        let base = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        let documents = files.compactMap { file in
            let name = file.path.hasPrefix(base) ? String(file.path.dropFirst(base.count)) : file.path
            return YAMLFiles.parse(file: file, displayName: name, references: &references, problems: problems)
        }
        let root = ConfigMerger.merge(documents, problems: problems)
        let config = BrokerConfigReader(problems: problems, directory: directory).read(root)
        ConfigValidator(problems: problems).validate(config, root: root, supportedStorageSchemes: supportedStorageSchemes)
        return (config, problems.problems)
    }
}
