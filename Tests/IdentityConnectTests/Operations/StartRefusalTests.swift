import EngineTesting
import Foundation
@testable import IdentityApp
import IdentityCore
import Logging
import Testing

/// What `serve` refuses before it creates anything (docs/operations.md, "Starting"): an issuer
/// that would name `0.0.0.0`, a port another process holds, a SQLite database another `serve` uses.
@Suite("Starting: refusals before anything is created")
struct StartRefusalTests {
    /// A config directory without `server.issuer`, and where its SQLite database would go.
    static func scratch() throws -> (config: String, database: String, root: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("idc-start-\(UUID().uuidString)")
        var files = TestBroker.defaultConfig()
        files["server.yaml"] = "server: {}\n"
        for (name, content) in files {
            let url = root.appendingPathComponent("config").appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        return (root.appendingPathComponent("config").path, root.appendingPathComponent("data/broker.sqlite").path, root)
    }

    static func prepare(_ options: ServeOptions) async throws -> PreparedBroker {
        var logger = Logger(label: "start-test")
        logger.logLevel = .critical
        return try await BrokerBootstrap.prepare(options: options, registry: TestBroker.defaultRegistry, serving: true,
                                                 environment: ["TEST_APP_SECRET": TestBroker.appSecret],
                                                 generateSigningKey: TestSigningKeys.make, logger: logger)
    }

    @Test("listening on 0.0.0.0 or a LAN address without an issuer is refused, naming the fix; nothing is created",
          arguments: ["0.0.0.0", "::", "192.0.2.10"])
    func nonLoopbackNeedsIssuer(host: String) async throws {
        let (config, database, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let error = await #expect(throws: BootstrapError.self) {
            _ = try await Self.prepare(ServeOptions(configDirectory: config, host: host, port: 0, storage: "sqlite:\(database)"))
        }
        let message = error?.description ?? ""
        #expect(message.contains("--issuer") && message.contains("server.issuer") && message.contains("--dev"))
        #expect(!message.contains("\n"))
        #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: database).deletingLastPathComponent().path))
    }

    @Test("the issuer defaults to the address on loopback, to localhost with --dev, and an explicit one always wins")
    func issuerDefaults() throws {
        #expect(try BrokerSettings.defaultIssuer(scheme: "http", host: "127.0.0.1", port: 8080, development: false) == "http://127.0.0.1:8080")
        #expect(try BrokerSettings.defaultIssuer(scheme: "https", host: "::1", port: 8443, development: false) == "https://[::1]:8443")
        #expect(try BrokerSettings.defaultIssuer(scheme: "http", host: "localhost", port: 80, development: false) == "http://localhost:80")
        #expect(try BrokerSettings.defaultIssuer(scheme: "http", host: "0.0.0.0", port: 8080, development: true) == "http://localhost:8080")
        for loopback in ["127.0.0.1", "127.8.9.10", "localhost", "LOCALHOST", "::1"] { #expect(BrokerSettings.isLoopback(loopback), "\(loopback)") }
        for other in ["0.0.0.0", "::", "10.0.0.1", "127.0.0", "127.0.0.1.5", "example.org", "128.0.0.1"] {
            #expect(!BrokerSettings.isLoopback(other), "\(other)")
        }
    }

    @Test("--dev on 0.0.0.0 starts with the issuer http://localhost:<port>")
    func developmentMode() async throws {
        let (config, database, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let prepared = try await Self.prepare(ServeOptions(configDirectory: config, host: "0.0.0.0", port: 0,
                                                           storage: "sqlite:\(database)", development: true))
        #expect(prepared.settings.issuer == "http://localhost:0")
        try await prepared.engine.storage.maintenance.close()
    }

    @Test("a port another process listens on is a one-line error, and nothing is created")
    func portInUse() async throws {
        let (config, database, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let holder = try SilentListener()
        let port = holder.port
        defer { withExtendedLifetime(holder) {} }
        let error = await #expect(throws: BootstrapError.self) {
            _ = try await Self.prepare(ServeOptions(configDirectory: config, port: port, storage: "sqlite:\(database)"))
        }
        #expect(error?.description == "127.0.0.1:\(port) is already in use (another idconnect serve?); stop that process or choose another port with --port")
        #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: database).deletingLastPathComponent().path))
        // The admin listener's port is checked the same way, naming its key.
        try "server:\n  adminPort: \(port)\n".write(toFile: config + "/server.yaml", atomically: true, encoding: .utf8)
        let adminError = await #expect(throws: BootstrapError.self) {
            _ = try await Self.prepare(ServeOptions(configDirectory: config, port: 0, storage: "sqlite:\(database)"))
        }
        #expect(adminError?.description.contains("server.adminPort") == true)
    }

    @Test("a second serve on the same SQLite database is refused while the first holds it; the lock goes with its holder")
    func sqliteHeldByAnotherServe() async throws {
        let (config, database, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        var first: SQLiteInstanceLock? = try SQLiteInstanceLock(databasePath: database)
        let error = await #expect(throws: BootstrapError.self) {
            _ = try await Self.prepare(ServeOptions(configDirectory: config, port: 0, storage: "sqlite:\(database)"))
        }
        #expect(error?.description.contains("another idconnect serve is using the SQLite database") == true)
        #expect(error?.description.contains("PostgreSQL") == true)
        let mode = try FileManager.default.attributesOfItem(atPath: database + ".lock")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        _ = first
        first = nil
        let prepared = try await Self.prepare(ServeOptions(configDirectory: config, port: 0, storage: "sqlite:\(database)"))
        #expect(prepared.sqliteLock != nil)
        try await prepared.engine.storage.maintenance.close()
    }

    @Test("server.adminPort: read with its host; a host without a port, or the broker's own port, is refused")
    func adminListenerSettings() async throws {
        let (config, database, root) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        try "server:\n  adminHost: 127.0.0.2\n".write(toFile: config + "/server.yaml", atomically: true, encoding: .utf8)
        let problems = await #expect(throws: ConfigProblems.self) {
            _ = try await Self.prepare(ServeOptions(configDirectory: config, port: 0, storage: "sqlite:\(database)"))
        }
        #expect(problems?.description.contains("server.adminHost") == true)
        try "server:\n  adminPort: 18555\n".write(toFile: config + "/server.yaml", atomically: true, encoding: .utf8)
        let same = await #expect(throws: BootstrapError.self) {
            _ = try await Self.prepare(ServeOptions(configDirectory: config, port: 18555, storage: "sqlite:\(database)"))
        }
        #expect(same?.description.contains("server.adminPort 18555 is the broker's own port") == true)
    }
}
