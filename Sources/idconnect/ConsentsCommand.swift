import ArgumentParser
import Foundation
import IdentityApp

/// `idconnect consents list|revoke`: what a user allowed which apps on the consent screen
/// (docs/consent.md), and taking it back. Works while brokers run, on SQLite and PostgreSQL.
struct ConsentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "consents", abstract: "List or take back what users allowed apps.",
                                                    subcommands: [List.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a user's consents, newest decision first.")

        @OptionGroup var options: StoreOptions
        @Option(help: "The auth service (its id).") var authService: String
        @Option(help: "The user (user id at the identity source, or subject).") var user: String
        @Flag(help: "One JSON object per line instead of a table.") var json = false

        func run() async throws {
            let tools = try await options.openTools()
            let rows = try await tools.consents(authService: authService, user: user).map { record in
                [("client", record.clientId), ("scopes", record.scopes.joined(separator: " ")), ("subject", record.subject),
                 ("granted", Listing.time(record.grantedAt)), ("updated", Listing.time(record.updatedAt))]
            }
            Listing.print(rows, json: json)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take back a user's consents: each app asks again at the next sign-in.")

        @OptionGroup var options: StoreOptions
        @Option(help: "The auth service (its id).") var authService: String
        @Option(help: "The user (user id at the identity source, or subject).") var user: String
        @Option(help: "Only this app's consent (appKey.authServiceId, or an instance's id).") var client: String?

        func run() async throws {
            let tools = try await options.openTools()
            let revoked = try await tools.revokeConsents(authService: authService, user: user, client: client)
            print("Took back \(revoked.count) consent(s) of \(user)\(revoked.isEmpty ? "" : ": " + revoked.map(\.clientId).joined(separator: ", ")).")
        }
    }
}
