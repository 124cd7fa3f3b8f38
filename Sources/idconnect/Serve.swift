import ArgumentParser
import BuildInfo
import Foundation
import Hummingbird
import IdentityApp
import IdentityCore

/// `idconnect serve`: runs the broker.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the broker.")

    @OptionGroup var configOption: ConfigOption
    @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on (default 8080).") var port: Int?
    @Option(help: "Issuer URL (default http://<host>:<port>, https:// with server.tls).") var issuer: String?
    @Option(help: "Storage: sqlite:PATH or postgres://user:pass@host:port/db (default sqlite:./data/idconnect.sqlite).")
    var storage: String?
    @Flag(help: "A trial run: allows --host 0.0.0.0 without an issuer (the issuer is then http://localhost:<port>).")
    var dev = false

    func run() async throws {
        guard let choice = ConcurrencyExecutor.chosen() else {
            var standardError = FileHandle.standardError
            print("idconnect: \(ConcurrencyExecutor.refusal)", to: &standardError)
            throw ExitCode(2)
        }
        let executor = ConcurrencyExecutor.install(choice)
        let logger = bootstrapLogging()
        let options = ServeOptions(configDirectory: configOption.config, host: host, port: port, issuer: issuer, storage: storage, development: dev)
        let prepared: PreparedBroker
        do {
            prepared = try await BrokerBootstrap.prepare(options: options, registry: ConnectorCatalog.registry, serving: true,
                                                         logger: logger)
        } catch let problems as ConfigProblems {
            report(problems)
            throw ExitCode(2)
        } catch {
            var standardError = FileHandle.standardError
            print("idconnect: cannot start: \(error)", to: &standardError)
            throw ExitCode(1)
        }
        logger.info("starting", metadata: [
            "version": "\(BuildInfo.version)", "commit": "\(BuildInfo.commit)",
            "issuer": "\(prepared.settings.issuer)", "listen": "\(prepared.settings.host):\(prepared.settings.port)",
            "storage": "\(prepared.settings.storage.redacted)", "executor": "\(executor.rawValue)",
        ])
        try await runBroker(prepared, logger: logger)
    }
}
