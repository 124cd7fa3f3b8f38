import Foundation
import IdentityConfig
import IdentityCore

/// One `console-config/` file, loaded and checked the way `idconnect config check` does.
enum ConfigFuzzing {
    /// A directory of this process that holds the one file under test.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("idc-fuzz-config-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
    static let loader = ConfigLoader(environment: ["FUZZ_SECRET": "s3cret"], supportedStorageSchemes: ["sqlite", "postgres"])

    /// Loading either gives a configuration or problems with a key path and a reason; it never
    /// traps, and every problem names where it is.
    static func config(_ data: Data) {
        let file = directory.appendingPathComponent("broker.yaml")
        guard (try? data.write(to: file)) != nil else { return }
        do {
            let (_, problems) = try loader.loadCollectingProblems(directory: directory.path)
            for problem in problems {
                require(!problem.reason.isEmpty, "a problem without a reason")
            }
        } catch let problems as ConfigProblems {
            require(!problems.problems.isEmpty, "ConfigProblems without a problem")
        } catch {
            require(false, "loading threw \(type(of: error)) instead of reporting problems")
        }
    }
}
