import ArgumentParser
import BuildInfo
import Foundation
import IdentityApp
import IdentityCore
import Logging

/// `idconnect`: the Identity Connect broker and its operator tools
/// (docs/operations.md, "Command line").
@main
struct IDConnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idconnect",
        abstract: "Identity Connect: an OAuth 2.0 / OpenID Connect broker for enterprise identity sources.",
        version: "idconnect \(BuildInfo.summary)",
        subcommands: [Serve.self, ConfigCommand.self, KeysCommand.self, VaultCommand.self, ClientsCommand.self, InstancesCommand.self, SessionsCommand.self, ConsentsCommand.self, MFACommand.self, AuthLinkCommand.self, HashPassword.self, HealthcheckCommand.self, BenchCommand.self, PageStringsCommand.self])
}

/// `--config` and `--storage` for the commands that work on stored state, and the operator
/// tools opened from them.
struct StoreOptions: ParsableArguments {
    @OptionGroup var configOption: ConfigOption
    @Option(help: "Storage URL (default: from the config, then sqlite:./data/idconnect.sqlite).") var storage: String?

    /// Reads the configuration and opens its storage (migrating it if needed).
    func openTools() async throws -> OperatorTools {
        try await OperatorTools.open(configDirectory: configOption.config, storage: storage,
                                     registry: ConnectorCatalog.registry, logger: bootstrapLogging())
    }
}

/// Shared `--config` option.
struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "Directory of console-config YAML files.")
    var config: String = "./console-config"
}

/// Prints configuration problems the way `config check` and `serve` report them.
func report(_ problems: ConfigProblems) {
    var standardError = FileHandle.standardError
    print("Configuration problems (\(problems.problems.count)):", to: &standardError)
    for problem in problems.problems { print("  \(problem)", to: &standardError) }
}

extension FileHandle: @retroactive TextOutputStream {
    public func write(_ string: String) { write(Data(string.utf8)) }
}

/// Logs: JSON lines on stderr by default; `IDCONNECT_LOG_FORMAT=text` for people reading a terminal.
/// `IDCONNECT_LOG_LEVEL` sets the level (default info).
func bootstrapLogging() -> Logger {
    let environment = ProcessInfo.processInfo.environment
    let level = environment["IDCONNECT_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
    let text = environment["IDCONNECT_LOG_FORMAT"] == "text"
    // Log lines are written from a thread of their own; whatever is still queued goes out at exit.
    atexit {
        AuditFile.flushAll()
        LogWriter.standardError.flush(timeout: 2)
    }
    LoggingSystem.bootstrap { label in
        if text {
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return JSONLogHandler(label: label, level: level)
    }
    return Logger(label: "idconnect")
}
