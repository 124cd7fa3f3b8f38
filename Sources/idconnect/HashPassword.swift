import ArgumentParser
import Foundation
import StaticConnector

/// `idconnect hash-password`: reads a password on stdin, prints a PBKDF2 PHC string
/// (docs/connectors/static.md, "Password hashes").
struct HashPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-password", abstract: "Read a password on stdin and print a passwordHash for static users.")

    @Option(help: "PBKDF2-SHA256 iterations (at least 10000).") var iterations: Int = 600_000

    func run() throws {
        guard iterations >= 10_000 else { throw ValidationError("--iterations must be at least 10000") }
        let input = FileHandle.standardInput.readDataToEndOfFile()
        var password = String(decoding: input, as: UTF8.self)
        if password.hasSuffix("\r\n") { password.removeLast(2) } else if password.hasSuffix("\n") { password.removeLast() }
        guard !password.isEmpty else { throw ValidationError("no password on stdin") }
        print(try PasswordHash.pbkdf2(password: password, iterations: iterations))
    }
}
