import ArgumentParser
import AuthLinkConnector
import Foundation

/// `idconnect authlink check URL --username U --password P`: tells an AuthLink author whether the
/// service follows the contract (docs/connectors/authlink.md, "Checking an AuthLink"), case by
/// case. Exits 1 when a case fails.
struct AuthLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "authlink", abstract: "Tools for AuthLink authors.",
                                                    subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Call an AuthLink as the broker would and judge its answers.")

        @Argument(help: "The AuthLink's login URL.") var url: String
        @Option(help: "A username that exists.") var username: String
        @Option(help: "Its password.") var password: String
        @Option(help: "The refresh URL, to check refreshes too.") var refreshUrl: String?
        @Option(help: "Shared secret sent as X-Auth-Key.") var sharedSecret: String?
        @Option(help: "When the AuthLink answers with a challenge (docs/mfa.md): the answer to send.") var challengeResponse: String?

        func run() async throws {
            let checker = AuthLinkChecker(loginURL: url, refreshURL: refreshUrl, sharedSecret: sharedSecret)
            let cases = await checker.run(username: username, password: password, challengeResponse: challengeResponse)
            for item in cases {
                print("\(item.passed ? "PASS" : "FAIL")  \(item.name)  [\(item.milliseconds) ms]\n      \(item.detail)")
            }
            let failed = cases.filter { !$0.passed }.count
            print(failed == 0 ? "\nThe AuthLink follows the contract (\(cases.count) checks)." : "\n\(failed) of \(cases.count) checks failed.")
            if failed > 0 { throw ExitCode(1) }
        }
    }
}
