import Foundation
import IdentityApp
import IdentityConfig
import SQLiteStore
import StoreContracts
import Testing

/// docs/security.md, rule 16: storage files are the broker's alone; unverified remote PostgreSQL is
/// reported.
@Suite("Security: private storage files")
struct StorageFilesSecurityTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    @Test("the data directory is 0700; the database, its -wal and -shm and the vault key are 0600")
    func modes() async throws {
        let broker = try await TestBroker.make(files: TestBroker.defaultConfig().filter { !$0.key.hasPrefix("vault") })
        try await broker.withClient { client in
            _ = try await Flows.tokens(client)   // writes, so the WAL files exist
            let data = broker.directory.appendingPathComponent("data").path
            #expect(try Self.mode(data) == 0o700)
            for file in ["broker.sqlite", "broker.sqlite-wal", "broker.sqlite-shm", "vault.key"] {
                #expect(try Self.mode(data + "/" + file) == 0o600, "\(file)")
            }
        }
    }

    @Test("existing files readable by others are tightened at open")
    func tightened() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idc-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("db.sqlite").path
        FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644])
        _ = try SQLiteStore(path: path)
        #expect(try Self.mode(path) == 0o600)
    }

    @Test("a PostgreSQL URL to another host without verify-full is reported; loopback and verify-full are not")
    func unverifiedRemote() throws {
        let config = BrokerConfig(vaultKeys: [VaultKeySetting(id: "k", secret: Array(repeating: 1, count: 32))],
                                  directory: URL(fileURLWithPath: "/"))
        func warnings(_ url: String) throws -> [String] {
            try BrokerBootstrap.preflight(config: config, storage: try #require(StorageLocation(url)))
        }
        #expect(try warnings("postgres://u:p@db.internal:5432/idc").first?.contains("verify-full") == true)
        #expect(try warnings("postgres://u:p@db.internal:5432/idc?sslmode=require").first?.contains("verify-full") == true)
        #expect(try warnings("postgres://u:p@db.internal:5432/idc?sslmode=verify-full").isEmpty)
        #expect(try warnings("postgres://u:p@db.internal:5432/idc?sslmode=verify-ca").isEmpty)
        #expect(try warnings("postgres://u:p@127.0.0.1:5432/idc").isEmpty)
        #expect(throws: BootstrapError.self) {
            try BrokerBootstrap.preflight(config: BrokerConfig(directory: URL(fileURLWithPath: "/")),
                                          storage: try #require(StorageLocation("postgres://u:p@127.0.0.1/idc")))
        }
    }
}
