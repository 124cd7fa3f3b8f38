import ArgumentParser
import Foundation
import IdentityApp

/// `idconnect instances list|delete`: registered mobile app instances (docs/protocol.md,
/// "Mobile app instances"). `revoke` is the name of earlier releases; `idconnect clients list`
/// lists them together with the configured clients.
struct InstancesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "instances", abstract: "Manage registered mobile app instances.",
                                                    subcommands: [List.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered instances (of one environment, or all).")

        @OptionGroup var options: StoreOptions
        @Option(help: "Only this environment's (its appKey).") var environment: String?
        @Flag(help: "One JSON object per line instead of a table.") var json = false

        func run() async throws {
            let tools = try await options.openTools()
            let rows = try await tools.instances(appKey: environment).map { instance -> [(String, String)] in
                [("client_id", instance.clientId), ("environment", instance.appKey), ("software_id", instance.softwareId),
                 ("device", instance.deviceType), ("registered", Listing.time(instance.createdAt)),
                 ("bound_user", instance.boundSubject == nil ? "-" : "yes")]
            }
            Listing.print(rows, json: json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an instance: its tokens stop working at once, its session ends.", aliases: ["revoke"])

        @OptionGroup var options: StoreOptions
        @Argument(help: "The instance's client_id.") var id: String

        func run() async throws {
            let tools = try await options.openTools()
            guard try await tools.deleteInstance(id: id) else { throw ValidationError("No registered instance '\(id)'.") }
            print("Deleted \(id).")
        }
    }
}
