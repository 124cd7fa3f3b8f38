import Foundation
import Hummingbird
import IdentityApp
import Logging

/// Serving a `TestBroker` over HTTPS on an ephemeral loopback port, the way `serve` builds its
/// server (`brokerHTTPServer` with the broker's `server.tls` context).
extension TestBroker {
    /// The `server.tls` files of a configuration: PEM files next to `server.yaml`, referenced with
    /// `${file:}` as an operator would.
    static func tlsFiles(certificate: String, key: String, extraServer: String = "") -> [String: String] {
        var files = defaultConfig()
        files["server.yaml"] = """
            server:
            \(extraServer)  tls:
                certificate: ${file:tls/server.pem}
                key: ${file:tls/server.key}
            """
        files["tls/server.pem"] = certificate
        files["tls/server.key"] = key
        return files
    }

    /// Runs the HTTPS server for the duration of `body`, which gets the bound port.
    func withTLSServer<T: Sendable>(_ body: @Sendable (Int) async throws -> T) async throws -> T {
        var logger = Logger(label: "test-https")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: buildRouter(engine, metrics: prepared.metrics),
                              server: brokerHTTPServer(engine.state.config.server.http, tls: prepared.tls),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                              logger: logger)
        defer { if ownsDirectory { try? FileManager.default.removeItem(at: directory) } }
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw TLSProbe.Failure(description: "the server did not start") }
            do {
                let result = try await body(port)
                tasks.cancelAll()
                return result
            } catch {
                tasks.cancelAll()
                throw error
            }
        }
    }
}
