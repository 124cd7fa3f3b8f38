import EngineTesting
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityCore
import JOSE
import Logging
import OAuthEngine
import StaticConnector

/// A real broker (config files, SQLite file, signing keys) in a temporary directory, with a
/// manual clock, served over loopback HTTP for tests.
struct TestBroker {
    let directory: URL
    let clock: ManualClock
    let engine: BrokerEngine
    let prepared: PreparedBroker
    /// The storage URL (`sqlite:` or `postgres://`), shared by siblings.
    let storage: String
    /// A sibling leaves the shared directory to the broker that made it.
    var ownsDirectory = true

    // The engine unit tests' fixture (`EngineFixture`) has the same client, users and configuration.
    static let appKey = EngineFixture.appKey
    static let appSecret = EngineFixture.appSecret
    static let redirect = EngineFixture.redirect
    static let nativeRedirect = EngineFixture.nativeRedirect
    /// The test brokers' issuer as it stands in a redirect's query (`iss`, RFC 9207).
    static let encodedIssuer = EngineFixture.encodedIssuer

    /// Password hashes are computed once per test process with the minimum cost (tests, not production).
    static let hashes = [TestUser.alice.username: TestUser.alice.passwordHash, TestUser.bob.username: TestUser.bob.passwordHash]

    /// The default test environment: several auth services exercising different settings.
    static func defaultConfig(signing: String = "RS256") -> [String: String] {
        let users = """
                    users:
                      - { username: alice, passwordHash: "\(hashes["alice"]!)", email: alice@example.org, name: Alice, groups: [admins, staff] }
                      - { username: bob, passwordHash: "\(hashes["bob"]!)" }
        """
        func service(_ id: String, _ extra: String = "") -> String {
            """
                  - id: \(id)
                    name: Test \(id)
                    redirectUri: [ "\(redirect)", "\(nativeRedirect)" ]
            \(extra)
                    provider:
                      type: static
                      options:
            \(users)
                      allowedAttributes: [ id, audience, email, name, groups, client_token ]
            """
        }
        let environment = """
        environments:
          - appKey: \(appKey)
            appSecret: ${env:TEST_APP_SECRET}
            defaultAuthService: users
            authServices:
        \(service("users", "        grantTtl: 60\n        tokenTtl: 600"))
        \(service("opaque", "        tokenFormat: opaque"))
        \(service("norefresh", "        refresh: false"))
        \(service("page", "        customizedLogin: { type: page, url: \"https://login.example.com/page\" }"))
        \(service("styled", "        customizedLogin: { type: css, url: \"https://cdn.example.com/login.css\" }"))
        """
        return [
            "server.yaml": "server:\n  issuer: http://127.0.0.1:8080\nsigning:\n  algorithm: \(signing)\n",
            "environments/test.yaml": environment,
        ]
    }

    static let defaultRegistry = ConnectorRegistry([StaticConnectorFactory()])

    static func make(files: [String: String] = defaultConfig(), environment: [String: String] = [:],
                     registry: ConnectorRegistry = defaultRegistry, clock: ManualClock = ManualClock(Date()),
                     backend: StoreBackend = .sqlite, postgresPool: Int? = nil) async throws -> TestBroker {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idc-test-\(UUID().uuidString)")
        let configDirectory = directory.appendingPathComponent("config")
        var files = files
        var storage = "sqlite:\(directory.appendingPathComponent("data/broker.sqlite").path)"
        if backend == .postgres {
            // Shared storage needs configured vault keys.
            storage = try await PostgresTestDatabase.create()
            // A smaller pool for a test that keeps the shared test server's connections few.
            if let postgresPool { storage += (storage.contains("?") ? "&" : "?") + "pool=\(postgresPool)" }
            files["vault.yaml"] = "vault:\n  keys:\n    - id: t1\n      secret: \(Data(repeating: 7, count: 32).base64EncodedString())\n"
        }
        for (name, content) in files {
            let url = configDirectory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let prepared = try await BrokerBootstrap.prepare(
            options: ServeOptions(configDirectory: configDirectory.path, storage: storage),
            registry: registry, clock: clock,
            environment: ["TEST_APP_SECRET": appSecret].merging(environment) { $1 },
            generateSigningKey: TestSigningKeys.make, logger: logger)
        return TestBroker(directory: directory, clock: clock, engine: prepared.engine, prepared: prepared, storage: storage)
    }

    /// Runs `body` against the broker's router in process (Hummingbird's `.router` testing: no
    /// socket, the fast way), or, with `network`, served on an ephemeral loopback port through the
    /// broker's own server pipeline: for what needs a real connection — the head guard and
    /// connection limits, the documents answered below the router, client addresses (throttling,
    /// rate limits, `X-Forwarded-For`), the data-link gateway, many requests at once.
    func withClient<T: Sendable>(network: Bool = false, _ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        var logger = Logger(label: "test-http")
        logger.logLevel = .critical
        let app = Application(router: buildRouter(engine, metrics: prepared.metrics),
                              server: brokerHTTPServer(engine.state.config.server.http, documents: .wellKnown(engine),
                                                       metrics: prepared.metrics),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        defer { if ownsDirectory { try? FileManager.default.removeItem(at: directory) } }
        return try await app.test(network ? .live : .router, body)
    }

    /// A second instance on the same configuration and database, as another `idconnect serve`
    /// started beside this one.
    func sibling(environment: [String: String] = [:], registry: ConnectorRegistry = defaultRegistry) async throws -> TestBroker {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let prepared = try await BrokerBootstrap.prepare(
            options: ServeOptions(configDirectory: configDirectory.path, storage: storage),
            registry: registry, clock: clock,
            environment: ["TEST_APP_SECRET": Self.appSecret].merging(environment) { $1 },
            generateSigningKey: TestSigningKeys.make, logger: logger)
        return TestBroker(directory: directory, clock: clock, engine: prepared.engine, prepared: prepared, storage: storage,
                          ownsDirectory: false)
    }

    var databasePath: String { directory.appendingPathComponent("data/broker.sqlite").path }

    /// How many sessions of `userId` are not revoked, read straight from the SQLite file: no
    /// store API lists a user's sessions, and a test must see one left behind.
    func liveSessionCount(userId: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: databasePath, configuration: configuration)
        return try database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions WHERE user_id = ? AND revoked_at IS NULL", arguments: [userId]) ?? 0
        }
    }
    /// The bytes pending authorizations take in the SQLite file (rows and their data).
    func pendingAuthorizationBytes() throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: databasePath, configuration: configuration)
        return try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(length(data) + length(id_hash) + 8), 0) FROM pending_authorizations") ?? 0
        }
    }

    var configDirectory: URL { directory.appendingPathComponent("config") }

    /// Replaces (or adds) one config file.
    func writeConfig(_ name: String, _ content: String) throws {
        try content.write(to: configDirectory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
}
