import ArgumentParser
import Foundation
import StaticConnector
#if canImport(Glibc)
import Glibc
#endif

/// `idconnect hash-password`: reads a password, prints a PBKDF2 PHC string
/// (docs/connectors/static.md, "Password hashes"). On a terminal it asks twice without echoing
/// what is typed; from a pipe it reads standard input to its end.
struct HashPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-password", abstract: "Read a password (typed without echo, or on stdin) and print a passwordHash for static users.")

    @Option(help: "PBKDF2-SHA256 iterations (at least 10000).") var iterations: Int = 600_000

    func run() throws {
        guard iterations >= 10_000 else { throw ValidationError("--iterations must be at least 10000") }
        let password: String
        if isatty(STDIN_FILENO) == 1 {
            password = try Self.typedTwice()
        } else {
            let input = FileHandle.standardInput.readDataToEndOfFile()
            var text = String(decoding: input, as: UTF8.self)
            if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
            password = text
        }
        guard !password.isEmpty else { throw ValidationError("no password given") }
        print(try PasswordHash.pbkdf2(password: password, iterations: iterations))
    }

    /// Asks for the password and its repetition on the terminal, echo off for both.
    static func typedTwice() throws -> String {
        try withEchoOff {
            let first = try line(prompt: "Password: ")
            let second = try line(prompt: "Repeat password: ")
            guard first == second else { throw ValidationError("the two passwords differ") }
            return first
        }
    }

    /// Runs `body` with the terminal's echo off (and back on, whatever happens). Echo goes off
    /// before the first prompt and the change takes effect at once (`TCSANOW`), never discarding
    /// input: with `TCSAFLUSH` a password typed or pasted right after the prompt appeared, before
    /// the switch, was thrown away and the command waited for a line that had already come.
    static func withEchoOff<T>(_ body: () throws -> T) throws -> T {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw ValidationError("cannot read the terminal's settings") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        guard tcsetattr(STDIN_FILENO, TCSANOW, &silent) == 0 else { throw ValidationError("cannot turn the terminal's echo off") }
        defer { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        return try body()
    }

    /// One line from the terminal after `prompt` (on standard error).
    static func line(prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        guard let line = readLine(strippingNewline: true) else { throw ValidationError("no password given") }
        return line
    }
}
