import ArgumentParser
import Foundation
import IdentityApp

/// `idconnect mfa list|reset`: who has which second factors, and removing a user's factors when
/// they lost their phone. Works while brokers run, on SQLite and PostgreSQL (docs/mfa.md).
struct MFACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mfa", abstract: "List or reset users' second factors.",
                                                    subcommands: [List.self, Reset.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List second-factor enrolments at an auth service.")

        @OptionGroup var options: StoreOptions
        @Option(help: "The auth service (its id).") var authService: String
        @Option(help: "Only this user (user id at the identity source, any case, or subject).") var user: String?
        @Flag(help: "One JSON object per line instead of a table.") var json = false

        func run() async throws {
            let tools = try await options.openTools()
            let rows = try await tools.mfaEnrolments(authService: authService, user: user).map { enrolment in
                [("user", enrolment.owner.userId), ("auth_service", enrolment.owner.authServiceId),
                 ("namespace", enrolment.owner.namespace),
                 ("authenticator_app", enrolment.totp.map { "since " + Listing.time($0.createdAt) } ?? "no"),
                 ("passkeys", String(enrolment.passkeys.count)), ("recovery_codes_left", String(enrolment.recoveryCodesLeft))]
            }
            Listing.print(rows, json: json)
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user's second factors and recovery codes (lost phone); they enrol again at the next sign-in.")

        @OptionGroup var options: StoreOptions
        @Option(help: "The auth service (its id).") var authService: String
        @Option(help: "The user (user id at the identity source, any case, or subject).") var user: String

        func run() async throws {
            let tools = try await options.openTools()
            let removed = try await tools.resetMFA(authService: authService, user: user)
            if removed.isEmpty {
                print("\(user) has no second factor at \(authService).")
                return
            }
            for (owner, removal) in removed {
                print("Removed from \(owner.userId) at \(owner.namespace): \(removal.totp) authenticator app(s), "
                    + "\(removal.passkeys) passkey(s), \(removal.recoveryCodes) recovery code(s).")
            }
        }
    }
}
