import ArgumentParser
import Foundation
import IdentityApp

/// `idconnect clients list|revoke`: registered mobile app instances (SPEC §3.8).
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clients", abstract: "Manage registered mobile app instances.",
                                                    subcommands: [List.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the registered instances of an environment.")

        @OptionGroup var options: StoreOptions
        @Option(help: "The environment's appKey.") var environment: String

        func run() async throws {
            let tools = try await options.openTools()
            let instances = try await tools.instances(appKey: environment)
            let formatter = ISO8601DateFormatter()
            print(["CLIENT_ID", "SOFTWARE_ID", "DEVICE", "REGISTERED", "BOUND"].joined(separator: "\t"))
            for instance in instances {
                print([instance.clientId, instance.softwareId, instance.deviceType, formatter.string(from: instance.createdAt),
                       instance.boundSubject == nil ? "no" : "yes"].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an instance and end its session.")

        @OptionGroup var options: StoreOptions
        @Argument(help: "The instance's client_id.") var id: String

        func run() async throws {
            let tools = try await options.openTools()
            guard try await tools.revokeInstance(id: id) else { throw ValidationError("No registered instance '\(id)'.") }
            print("Revoked \(id).")
        }
    }
}
