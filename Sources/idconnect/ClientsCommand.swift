import ArgumentParser
import Foundation
import IdentityApp

/// `idconnect clients list`: every client the broker answers to — the App Keys and auth services
/// of `console-config/` and the registered mobile app instances (docs/operations.md, "Command
/// line"). `clients delete` removes an instance, as `instances delete` does.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients", abstract: "List the configured clients and the registered app instances.",
        subcommands: [List.self, InstancesCommand.Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List configured clients (App Key and auth service) and registered instances, of one environment or all.")

        @OptionGroup var options: StoreOptions
        @Option(help: "Only this environment's (its appKey).") var environment: String?
        @Flag(help: "One JSON object per line instead of a table.") var json = false

        func run() async throws {
            let tools = try await options.openTools()
            let configured = try tools.configuredClients(appKey: environment).map { client -> [(String, String)] in
                [("client_id", client.clientId), ("kind", "configured"), ("environment", client.appKey),
                 ("auth_service", client.authServiceId), ("connector", client.connector), ("defined_in", client.definedIn),
                 ("redirect_uris", client.redirectURIs.joined(separator: " "))]
            }
            let instances = try await tools.instances(appKey: environment).map { instance -> [(String, String)] in
                [("client_id", instance.clientId), ("kind", "instance"), ("environment", instance.appKey),
                 ("auth_service", "-"), ("connector", "-"),
                 ("defined_in", "registered \(Listing.time(instance.createdAt)) (\(instance.softwareId), \(instance.deviceType))"),
                 ("redirect_uris", instance.redirectURIs.joined(separator: " "))]
            }
            Listing.print(configured + instances, json: json)
        }
    }
}
