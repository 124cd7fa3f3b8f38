import ArgumentParser
import Foundation
import IdentityApp

/// `idconnect sessions list|revoke`: who is signed in, and ending one user's sign-ins (someone
/// left the company, a device was lost). Works while brokers run, on SQLite and PostgreSQL.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sessions", abstract: "List or end users' sign-in sessions.",
                                                    subcommands: [List.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List live sessions, newest first.")

        @OptionGroup var options: StoreOptions
        @Option(help: "Only sessions at this auth service (its id).") var authService: String?
        @Option(help: "Only this user's sessions (user id, any case, or subject).") var user: String?
        @Option(help: "At most this many.") var limit = 1000
        @Flag(help: "One JSON object per line instead of a table.") var json = false

        func run() async throws {
            let tools = try await options.openTools()
            let rows = try await tools.sessions(authService: authService, user: user, limit: max(1, limit)).map { session in
                [("session", session.id), ("user", session.userId), ("subject", session.subject),
                 ("environment", session.appKey), ("auth_service", session.authServiceId),
                 ("signed_in", Listing.time(session.authTime)), ("expires", Listing.time(session.expiresAt))]
            }
            Listing.print(rows, json: json)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End every live session of a user: their tokens answer invalid_token at once on every broker.")

        @OptionGroup var options: StoreOptions
        @Option(help: "The user (user id, any case, or subject).") var user: String
        @Option(help: "Only their sessions at this auth service.") var authService: String?

        func run() async throws {
            let tools = try await options.openTools()
            let ended = try await tools.revokeSessions(user: user, authService: authService)
            print("Ended \(ended.count) session(s) of \(user).")
        }
    }
}

/// Tables for people, JSON lines for scripts.
enum Listing {
    static func time(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func print(_ rows: [[(String, String)]], json: Bool) {
        if json {
            for row in rows {
                let object = Dictionary(row, uniquingKeysWith: { first, _ in first })
                let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
                Swift.print(String(decoding: data, as: UTF8.self))
            }
            return
        }
        guard let first = rows.first else {
            Swift.print("(none)")
            return
        }
        Swift.print(first.map { $0.0.uppercased() }.joined(separator: "\t"))
        for row in rows { Swift.print(row.map(\.1).joined(separator: "\t")) }
    }
}
