import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import Logging
import OAuthEngine
import Testing

/// `idconnect sessions list|revoke` and `idconnect instances list|delete` (through
/// `OperatorTools`, what the commands call) against a running broker on the same storage.
@Suite("Operations: admin commands on a running broker")
struct OperatorCommandsTests {
    /// The registration test configuration with an audit file in the broker's directory.
    static func files(auditFile: String) -> [String: String] {
        var files = RegistrationTests.registrationFiles()
        files["server.yaml"] = "server:\n  issuer: http://127.0.0.1:8080\n  audit:\n    file: \(auditFile)\n"
        return files
    }

    static func make(_ backend: StoreBackend) async throws -> (TestBroker, String) {
        let audit = FileManager.default.temporaryDirectory.appendingPathComponent("idc-audit-\(UUID().uuidString).jsonl").path
        return (try await RegistrationTests.make(files: files(auditFile: audit), backend: backend), audit)
    }

    /// What the CLI opens: the broker's configuration and storage, in a process of its own.
    static func tools(_ broker: TestBroker) async throws -> OperatorTools {
        let jwks = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [RegistrationTests.statementKey.publicKey.publicFields]]),
                          as: UTF8.self)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await OperatorTools.open(
            configDirectory: broker.configDirectory.path, storage: broker.storage, registry: TestBroker.defaultRegistry,
            environment: ["TEST_APP_SECRET": TestBroker.appSecret, "TEST_IAT": RegistrationTests.iat, "CSI_JWKS": jwks],
            clock: broker.clock, logger: logger)
    }

    @Test("sessions list shows who is signed in; revoke ends one user's sessions at once, nobody else's",
          arguments: StoreBackend.allCases)
    func sessions(_ backend: StoreBackend) async throws {
        let (broker, auditFile) = try await Self.make(backend)
        try await broker.withClient { client in
            let alice1 = try await Flows.tokens(client)
            let alice2 = try await Flows.tokens(client)
            let bobCode = try #require(queryItems(try await Flows.automatedLogin(client, username: "bob", password: "bobpw"))["code"])
            let bob = try await Flows.exchange(client, code: bobCode).json
            let tools = try await Self.tools(broker)

            let listed = try await tools.sessions(authService: nil, user: nil)
            #expect(listed.count == 3)
            #expect(try await tools.sessions(authService: "users", user: "ALICE").count == 2)
            #expect(try await tools.sessions(authService: "opaque", user: nil).isEmpty)
            await #expect(throws: OperatorToolError.self) { try await tools.sessions(authService: "typo", user: nil) }

            let ended = try await tools.revokeSessions(user: "alice", authService: "users")
            #expect(ended.count == 2)
            for tokens in [alice1, alice2] {
                let access = try #require(tokens["access_token"] as? String)
                let validation = try await Flows.validate(client, access)
                #expect(validation.status == .unauthorized)
                #expect(validation.json["error"] as? String == "invalid_token")
                let refreshed = try await Flows.refresh(client, try #require(tokens["refresh_token"] as? String))
                #expect(refreshed.json["error"] as? String == "invalid_grant")
            }
            #expect(try await Flows.validate(client, try #require(bob["access_token"] as? String)).status == .ok)
            #expect(try await tools.sessions(authService: nil, user: nil).map(\.userId) == ["bob"])
            #expect(try await tools.revokeSessions(user: "alice", authService: nil).isEmpty)

            let events = try AuditLines.read(auditFile, flushing: tools.audit)
            let operatorEnds = events.filter { $0["event"] == "session.ended" && $0["reason"] == "operator" }
            #expect(Set(operatorEnds.compactMap { $0["session"] }) == Set(ended.map(\.id)))
            #expect(operatorEnds.allSatisfy { $0["user"] == "alice" && $0["auth_service"] == "users" })
        }
    }

    @Test("instances list shows the instance bound; delete ends re-login and its tokens at once", arguments: StoreBackend.allCases)
    func instances(_ backend: StoreBackend) async throws {
        let (broker, auditFile) = try await Self.make(backend)
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let access = try #require(try await InstanceFlows.signIn(client, instance).json["access_token"] as? String)
            let tools = try await Self.tools(broker)
            let listed = try await tools.instances(appKey: TestBroker.appKey)
            #expect(listed.map(\.clientId) == [instance.clientId])
            #expect(listed.first?.boundSubject != nil)
            #expect(try await tools.instances(appKey: nil).map(\.clientId) == [instance.clientId])
            await #expect(throws: OperatorToolError.self) { try await tools.instances(appKey: "kid_typo") }

            #expect(try await tools.deleteInstance(id: instance.clientId))
            #expect(try await !tools.deleteInstance(id: instance.clientId))
            #expect(try await InstanceFlows.relogin(client, instance).json["error"] as? String == "invalid_client")
            #expect(try await Flows.validate(client, access).status == .unauthorized)

            let events = try AuditLines.read(auditFile, flushing: tools.audit)
            #expect(events.contains { $0["event"] == "instance.deleted" && $0["client"] == instance.clientId && $0["by"] == "operator" })
            #expect(events.contains { $0["event"] == "session.ended" && $0["reason"] == "instance_deleted" })
        }
    }
}

/// Reads an audit file (JSON lines) after flushing what the trails wrote.
enum AuditLines {
    static func read(_ path: String, flushing trails: AuditTrail...) throws -> [[String: String]] {
        AuditFile.flushAll(timeout: 5)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object.compactMapValues { $0 as? String }
        }
    }
}
