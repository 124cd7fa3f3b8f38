import ArgumentParser
import AuthLinkKit
import Foundation

/// `authlink-sample`: a runnable AuthLink on AuthLinkKit, users from a file.
@main
struct AuthLinkSample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authlink-sample", abstract: "A sample AuthLink service (POST /login, POST /refresh).")

    @Option(help: "JSON file with the users.") var users: String = "Connectors/AuthLinkSample/users.json"
    @Option(help: "Address to listen on.") var host: String = "127.0.0.1"
    @Option(help: "Port to listen on.") var port: Int = 9400
    @Option(help: "Require this X-Auth-Key on every call.") var sharedSecret: String?

    func run() async throws {
        let directory = try SampleDirectory(file: users)
        let service = AuthLinkService(sharedSecret: sharedSecret,
                                      login: { directory.login($0) }, refresh: { directory.refresh($0) },
                                      challenge: { directory.answer($0) })
        print("authlink-sample: \(directory.users.count) user(s) on http://\(host):\(port) (POST /login, POST /refresh)")
        try await service.run(host: host, port: port)
    }
}
