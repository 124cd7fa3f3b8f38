import ArgumentParser
import Foundation
import IdentityApp
import IdentityCore

/// `idconnect config check`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "config", abstract: "Work with console-config.",
                                                    subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load and validate the configuration; print every problem; exit non-zero on any.")

        @OptionGroup var configOption: ConfigOption

        func run() async throws {
            do {
                let (config, directory) = try BrokerBootstrap.loadConfig(directory: configOption.config, registry: ConnectorCatalog.registry)
                let settings = try BrokerSettings(options: ServeOptions(configDirectory: configOption.config), config: config)
                if let tls = config.server.tls {
                    // What `serve` builds: the pair must load into a TLS context, not only parse.
                    do {
                        _ = try TLSContextSource(tls)
                    } catch {
                        print("\(tls.keySource.location): \(error)")
                        throw ExitCode(1)
                    }
                }
                do {
                    for warning in try BrokerBootstrap.preflight(config: config, storage: settings.storage) {
                        print("warning: storage: \(warning)")
                    }
                } catch {
                    print("storage: \(error)")
                    throw ExitCode(1)
                }
                // IdP metadata named by URL is fetched and checked now; serve would start without it.
                let metadataProblems = await BrokerBootstrap.checkMetadata(directory)
                if !metadataProblems.isEmpty { throw ConfigProblems(metadataProblems) }
                let services = directory.environments.values.reduce(0) { $0 + $1.services.count }
                print("OK: \(config.environments.count) environment(s), \(config.organizations.count) organization(s), \(services) auth service binding(s).")
            } catch let problems as ConfigProblems {
                report(problems)
                throw ExitCode(1)
            }
        }
    }
}
