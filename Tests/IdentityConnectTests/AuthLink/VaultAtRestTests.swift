import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityCore
import StoreContracts
import Logging
import Testing

@Suite("Vault: nothing secret in clear at rest; rotation while serving")
struct VaultAtRestTests {
    static func vaultYAML(_ keys: [(String, UInt8)]) -> String {
        "vault:\n  keys:\n" + keys.map { "    - id: \($0.0)\n      secret: \(Data(repeating: $0.1, count: 32).base64EncodedString())\n" }.joined()
    }

    @Test("the SQLite files contain no upstream token, refresh token, client secret or password")
    func nothingInClear() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let tokens = try await AuthLinkFixture.signIn(client, "expiring").json
                let refresh = try #require(tokens["refresh_token"] as? String)
                let rotated = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                                        headers: basicAuth(AuthLinkFixture.appKey, AuthLinkFixture.secret)).json
                let access = try #require(tokens["access_token"] as? String)
                var bytes = Data()
                for suffix in ["", "-wal", "-shm"] {
                    bytes.append(FileManager.default.contents(atPath: broker.databasePath + suffix) ?? Data())
                }
                #expect(bytes.count > 10_000)
                for secret in ["tok-expiring", "rt-1", refresh, try #require(rotated["refresh_token"] as? String), access,
                               AuthLinkFixture.secret, TestBroker.appSecret, "shared-key-1"] {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "found \(secret.prefix(12))… in the database")
                }
            }
        }
    }

    @Test("vault rotate re-seals everything under the new key while validate requests run")
    func rotationWhileServing() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            let files = AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9", vaultKeys: Self.vaultYAML([("v1", 1)]))
            let broker = try await TestBroker.make(files: files, registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                var signedIn: [String] = []
                for _ in 0..<10 { signedIn.append(try #require(try await AuthLinkFixture.signIn(client, "ok").json["access_token"] as? String)) }
                let tokens = signedIn
                var logger = Logger(label: "vault-test")
                logger.logLevel = .critical
                try broker.writeConfig("vault.yaml", Self.vaultYAML([("v2", 2), ("v1", 1)]))
                #expect(await ReloadService(prepared: broker.prepared, logger: logger).reload())
                let tools = try await OperatorTools.open(configDirectory: broker.configDirectory.path, storage: "sqlite:\(broker.databasePath)",
                                                         registry: AuthLinkFixture.registry, environment: ["TEST_APP_SECRET": TestBroker.appSecret],
                                                         clock: broker.clock, logger: logger)
                let (result, statuses) = try await withThrowingTaskGroup(of: [Int].self) { group in
                    group.addTask {
                        var statuses: [Int] = []
                        for _ in 0..<5 { for token in tokens { statuses.append(try await Flows.validate(client, token).status.code) } }
                        _ = try await AuthLinkFixture.signIn(client, "ok")
                        return statuses
                    }
                    let result = try await tools.rotateVault(batchSize: 3)
                    let statuses = try await group.reduce(into: []) { $0 += $1 }
                    return (result, statuses)
                }
                #expect(statuses.allSatisfy { $0 == 200 })
                #expect(result.resealed >= 11)   // 10 sessions and the signing key at least
                for kind in SealedValue.Kind.allCases {
                    for value in try await broker.engine.storage.sealed.sealedValues(kind, after: nil, limit: 1000) {
                        #expect(Vault.keyId(of: value.data) == "v2", "\(kind) \(value.id)")
                    }
                }
                // The old key can go now.
                try broker.writeConfig("vault.yaml", Self.vaultYAML([("v2", 2)]))
                #expect(await ReloadService(prepared: broker.prepared, logger: logger).reload())
                for token in tokens { #expect(try await Flows.validate(client, token).json["client_token"] as? String == Data("tok-ok".utf8).base64EncodedString()) }
            }
        }
    }
}
