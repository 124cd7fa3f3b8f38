import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityConfig
import OAuthEngine
import Testing

/// Audit events (docs/operations.md, "Audit events"): one per sign-in, failure, replay, ended
/// session and instance, with who, what and from where — and nothing secret.
@Suite("Operations: audit events")
struct AuditTrailTests {
    @Test("sign-ins, failures, throttling, code replay, refresh reuse, logout, instances: one event each, no secret in any")
    func events() async throws {
        let (broker, auditFile) = try await OperatorCommandsTests.make(.sqlite)
        let seen = try await broker.withClient(network: true) { client -> [String] in
            // A success and a failure through the automated grant.
            let tokens = try await Flows.tokens(client)
            let failed = try await Flows.automatedLogin(client, username: "alice", password: "not-alices-password")
            #expect(queryItems(failed)["error"] == "access_denied")
            // Five more wrong guesses for bob: the last is throttled.
            for _ in 0..<6 { _ = try await Flows.automatedLogin(client, username: "bob", password: "not-alices-password") }

            // A code used twice.
            let location = try await Flows.automatedLogin(client)
            let code = try #require(queryItems(location)["code"])
            let first = try await Flows.exchange(client, code: code).json
            #expect(try await Flows.exchange(client, code: code).json["error"] as? String == "invalid_grant")

            // A refresh token used after its successor was rotated away: reuse.
            let r0 = try #require(tokens["refresh_token"] as? String)
            let r1 = try #require(try await Flows.refresh(client, r0).json["refresh_token"] as? String)
            let r2 = try #require(try await Flows.refresh(client, r1).json["refresh_token"] as? String)
            #expect(try await Flows.refresh(client, r0).json["error"] as? String == "invalid_grant")

            // A browser sign-in and its logout.
            let (sso, idToken, access) = try await LogoutSecurityTests.signIn(client)
            let out = try await client.get("/oauth/logout?" + formEncode([("id_token_hint", idToken)]), headers: [.cookie: "idc_sso=\(sso)"])
            #expect(out.status == .ok || out.status == .found)

            // An instance registered, then deleted by itself (RFC 7592).
            let instance = try await InstanceFlows.register(client, broker: broker)
            let deleted = try await client.execute(uri: instance.registrationPath, method: .delete,
                                                   headers: RegistrationTests.bearer(instance.registrationToken), body: nil)
            #expect(deleted.status == .noContent)

            return [code, r0, r1, r2, sso, idToken, access, instance.secret, instance.registrationToken]
                + [first, tokens].flatMap { [$0["access_token"], $0["refresh_token"], $0["id_token"]] }.compactMap { $0 as? String }
        }
        let secrets = seen + [TestBroker.appSecret, "alicepw", "not-alices-password", RegistrationTests.iat]
        let events = try AuditLines.read(auditFile)
        func named(_ name: String) -> [[String: String]] { events.filter { $0["event"] == name } }

        let signedIn = named("sign_in.succeeded")
        #expect(signedIn.count == 3)
        let success = try #require(signedIn.first)
        #expect(success["user"] == "alice" && success["connector"] == "static" && success["auth_service"] == "users")
        #expect(success["client"] == TestBroker.appKey && success["address"] == "127.0.0.1")
        #expect(success["subject"] != nil && success["session"] != nil && success["ts"] != nil)

        let failures = named("sign_in.failed")
        #expect(failures.contains { $0["user"] == "alice" && $0["reason"] == "rejected" && $0["address"] == "127.0.0.1" })
        #expect(failures.filter { $0["user"] == "bob" && $0["reason"] == "rejected" }.count == 5)
        #expect(failures.contains { $0["user"] == "bob" && $0["reason"] == "throttled" })

        #expect(named("code.replayed").count == 1)
        #expect(named("refresh.reuse_detected").count == 1)
        let ended = named("session.ended")
        #expect(ended.contains { $0["reason"] == "reuse" })
        #expect(ended.contains { $0["reason"] == "logout" })
        #expect(named("instance.registered").first?["software_id"] == "CSI")
        #expect(named("instance.deleted").first?["by"] == "client")

        let text = try String(contentsOfFile: auditFile, encoding: .utf8)
        for secret in secrets { #expect(!text.contains(secret), "a secret is in the audit file") }
    }

    @Test("the file rotates by size: file, file.1 … file.<keep>, the oldest dropped; files are 0600")
    func rotation() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idc-rotate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("audit.jsonl").path
        let file = try AuditFile(settings: AuditSettings(file: path, maxBytes: 4096, keep: 2), path: path)
        let event = AuditEvent(.signInFailed, ["user": String(repeating: "u", count: 200), "reason": "rejected"])
        for _ in 0..<100 {
            file.write(event, at: Date())
            file.flush()   // one batch per event, as under light load
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"])
        for name in names {
            let full = directory.appendingPathComponent(name).path
            let size = try #require(try FileManager.default.attributesOfItem(atPath: full)[.size] as? Int)
            #expect(size <= 4096)
            #expect(try StorageFilesSecurityTests.mode(full) == 0o600)
            let lines = try String(contentsOfFile: full, encoding: .utf8).split(separator: "\n")
            #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        }
    }

    @Test("server.audit: bad values are reported; a missing directory refuses the start before storage")
    func configuration() async throws {
        let problems = try ConfigLoaderTests.problems(["x.yaml": "server:\n  audit: { file: \"\", maxBytes: 10, keep: 1000, color: red }\n"])
        for expected in ["must not be empty", "at least 4096", "at most 100", "unknown key"] {
            #expect(problems.contains { $0.description.contains(expected) }, "\(expected)")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("idc-audit-missing-\(UUID().uuidString)")
        await #expect(throws: BootstrapError.self) {
            _ = try await RefusedConfigTests.prepare(
                ["x.yaml": "server:\n  audit: { file: \(root.path)/nowhere/audit.jsonl }\n" + RefusedConfigTests.environment()],
                storage: "sqlite:\(root.path)/data/db.sqlite")
        }
        #expect(!FileManager.default.fileExists(atPath: root.path + "/data"))
    }
}
