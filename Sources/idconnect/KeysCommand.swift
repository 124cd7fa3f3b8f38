import ArgumentParser
import Foundation
import IdentityApp
import IdentityCore
import JOSE
import Logging
import OAuthEngine

/// `idconnect keys rotate`: a new signing key becomes active; old keys stay in the JWKS until
/// every token they signed has expired (docs/operations.md, "Signing keys"). Running brokers pick
/// the new key up within a minute (housekeeping), and at once when they see a token it signed.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "Manage token signing keys.",
                                                    subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a new signing key active.")

        @OptionGroup var options: StoreOptions

        func run() async throws {
            let tools = try await options.openTools()
            let kid = try await tools.rotateSigningKey()
            print("New active signing key: \(kid). Previous keys stay published for \(Int(tools.keyRetention)) s.")
        }
    }
}

/// `idconnect vault rotate`: re-seals every stored upstream token (and signing key, and refresh
/// grace answer) under the newest vault key while brokers keep serving
/// (docs/operations.md, "Vault").
///
/// Procedure: put the new key first in `vault.keys`, SIGHUP every broker, run this, and only
/// then remove the old key.
struct VaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "vault", abstract: "Manage the vault that seals upstream tokens.",
                                                    subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-seal everything under the newest vault key.")

        @OptionGroup var options: StoreOptions

        func run() async throws {
            let tools = try await options.openTools()
            let result = try await tools.rotateVault { looked in
                var standardError = FileHandle.standardError
                Swift.print("vault rotate: \(looked) sealed value(s) checked", to: &standardError)
            }
            print("Vault rotation to key '\(tools.vault.activeKeyId)': \(result).")
            // Short-lived values are left to expire rather than re-sealed (see
            // docs/operations.md, "Vault").
            print("Keep the old key in vault.keys for another 10 minutes: sign-ins in progress and one-time css values still use it.")
        }
    }
}
