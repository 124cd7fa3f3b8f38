import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import Testing

/// A refused configuration touches no storage: no database file, no key file, no tables.
@Suite("Operations: a refused configuration writes nothing")
struct RefusedConfigTests {
    static let vault = "vault:\n  keys:\n    - { id: k1, secret: \"\(Data(repeating: 7, count: 32).base64EncodedString())\" }\n"

    static func environment(extra: String = "") -> String {
        "environments:\n  - appKey: kid_x\n\(extra)    authServices:\n\(ConfigLoaderTests.service())\n"
    }

    static func prepare(_ files: [String: String], storage: String, environment: [String: String] = [:]) async throws -> String {
        let directory = try ConfigLoaderTests.directory(files)
        _ = try await BrokerBootstrap.prepare(options: ServeOptions(configDirectory: directory, storage: storage),
                                              registry: ConfigLoaderTests.registry, environment: environment,
                                              logger: .init(label: "refused-config"))
        return directory
    }

    static func publicTables(_ url: String) async throws -> Int {
        let rows = try await PostgresTestDatabase.execute(
            "SELECT count(*)::INT FROM information_schema.tables WHERE table_schema = 'public'", database: url)
        return try rows.first.map { try $0.decode(Int.self) } ?? -1
    }

    @Test("PostgreSQL: a config problem, a missing vault key, a bad vault key, a bad secret reference — no tables",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func postgresUntouched() async throws {
        let url = try await PostgresTestDatabase.create()
        let refused: [(String, [String: String])] = [
            ("unknown key", ["x.yaml": Self.vault + Self.environment(extra: "    bogus: 1\n")]),
            ("no vault keys", ["x.yaml": Self.environment()]),
            ("short vault key", ["x.yaml": "vault:\n  keys:\n    - { id: k1, secret: \"c2hvcnQ=\" }\n" + Self.environment()]),
            ("missing secret", ["x.yaml": Self.vault + Self.environment(extra: "    appSecret: ${env:NOT_SET_ANYWHERE}\n")]),
        ]
        for (name, files) in refused {
            await #expect(throws: (any Error).self, "\(name)") { _ = try await Self.prepare(files, storage: url) }
            #expect(try await Self.publicTables(url) == 0, "\(name) created tables")
        }
        // The same database and a good config: the broker migrates it (the check above can see tables).
        let accepted = try await Self.prepare(["x.yaml": Self.vault + Self.environment()], storage: url)
        #expect(try await Self.publicTables(url) > 0)
        try? FileManager.default.removeItem(atPath: accepted)
    }

    @Test("PostgreSQL: a URL that does not parse is refused before connecting")
    func badURL() async throws {
        await #expect(throws: BootstrapError.self) {
            _ = try await Self.prepare(["x.yaml": Self.vault + Self.environment()], storage: "postgres://u:p@127.0.0.1:notaport/db")
        }
    }

    @Test("SQLite: a config problem or an unreadable vault key file creates no database")
    func sqliteUntouched() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("idc-refused-\(UUID().uuidString)")
        let data = root.appendingPathComponent("data")
        await #expect(throws: ConfigProblems.self) {
            _ = try await Self.prepare(["x.yaml": Self.environment(extra: "    bogus: 1\n")], storage: "sqlite:\(data.path)/db.sqlite")
        }
        #expect(!FileManager.default.fileExists(atPath: data.path))

        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try "not a key\n".write(to: data.appendingPathComponent("vault.key"), atomically: true, encoding: .utf8)
        await #expect(throws: BootstrapError.self) {
            _ = try await Self.prepare(["x.yaml": Self.environment()], storage: "sqlite:\(data.path)/db.sqlite")
        }
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("db.sqlite").path))
        try? FileManager.default.removeItem(at: root)
    }
}
