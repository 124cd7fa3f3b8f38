import Foundation
import HummingbirdTesting
import Testing

/// docs/security.md, rule 6 (issue 56): the login throttle counts failures, never attempts in
/// flight or successful ones. A shared account signed in by many clients at once — a back end's
/// workers, a test rig, a kiosk fleet — is never refused while its password is right; attempts
/// beyond the ones the throttle lets be in flight wait for a slot instead. Failures still lock
/// the username as documented (five in five minutes, then one attempt per 30 seconds), on every
/// instance sharing the database, and the refusal says what happened.
@Suite("Security: concurrent correct sign-ins are never throttled")
struct ThrottleConcurrencyTests {
    static let clients = 32

    /// `clients` password grants for bob with the right password at once, each on a connection of
    /// its own, sent to `ports` in turn; the statuses and error descriptions of the answers.
    static func concurrentGrants(ports: [Int], password: String = "bobpw") async throws -> [(Int, String?)] {
        try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<clients {
                group.addTask {
                    let answer = try await ParallelClient.postForm(
                        port: ports[index % ports.count], "/oauth/token",
                        [("grant_type", "password"), ("username", "bob"), ("password", password)],
                        basic: (TestBroker.appKey, TestBroker.appSecret))
                    return (answer.status, answer.json["error_description"] as? String)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    static func passwordGrant(_ client: any TestClientProtocol, _ password: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "bob"), ("password", password)],
                                  headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
    }

    @Test("32 correct sign-ins of one user at once all succeed", arguments: StoreBackend.allCases)
    func oneInstance(_ backend: StoreBackend) async throws {
        let broker = try await TestBroker.make(backend: backend, postgresPool: 2)
        try await broker.withClient(network: true) { client in
            let port = try #require(client.port)
            for round in 1...2 {
                let answers = try await Self.concurrentGrants(ports: [port])
                let refused = answers.filter { $0.0 != 200 }
                #expect(refused.isEmpty, "round \(round): \(refused.count) of \(Self.clients) refused: \(refused.prefix(3))")
            }
            // Its pool's connections go back to the test server, which the whole suite shares.
            try await broker.engine.storage.maintenance.close()
        }
    }

    @Test("32 correct sign-ins of one user at once all succeed on two instances sharing PostgreSQL",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func twoInstances() async throws {
        let first = try await TestBroker.make(backend: .postgres, postgresPool: 2)
        let second = try await first.sibling()
        try await first.withClient(network: true) { one in
            try await second.withClient(network: true) { two in
                let ports = [try #require(one.port), try #require(two.port)]
                for round in 1...2 {
                    let answers = try await Self.concurrentGrants(ports: ports)
                    let refused = answers.filter { $0.0 != 200 }
                    #expect(refused.isEmpty, "round \(round): \(refused.count) of \(Self.clients) refused: \(refused.prefix(3))")
                }
                // Failures on either instance still lock the username on both.
                for index in 0..<5 { _ = try await Self.passwordGrant(index % 2 == 0 ? one : two, "wrong") }
                #expect(try await Self.passwordGrant(one, "bobpw").status == .tooManyRequests)
                #expect(try await Self.passwordGrant(two, "bobpw").status == .tooManyRequests)
                for broker in [first, second] { try await broker.engine.storage.maintenance.close() }
            }
        }
    }

    @Test("10 wrong passwords, then the right one: held back for 30 seconds with the reason in words, then signed in",
          arguments: StoreBackend.allCases)
    func wrongThenRight(_ backend: StoreBackend) async throws {
        let broker = try await TestBroker.make(backend: backend, postgresPool: 2)
        try await broker.withClient { client in
            var statuses: [Int] = []
            for _ in 1...10 { statuses.append(Int(try await Self.passwordGrant(client, "wrong").status.code)) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 400 }, "\(statuses)")
            #expect(statuses.suffix(5).allSatisfy { $0 == 429 }, "\(statuses)")
            let held = try await Self.passwordGrant(client, "bobpw")
            #expect(held.status == .tooManyRequests)
            #expect(held.json["error"] as? String == "access_denied")
            let description = try #require(held.json["error_description"] as? String)
            #expect(description.contains("failed sign-ins") && description.contains("Wait 30 seconds"), "\(description)")
            #expect(held.headers[.retryAfter] == "30")
            broker.clock.advance(10)
            let later = try await Self.passwordGrant(client, "bobpw")
            #expect(later.headers[.retryAfter] == "20", "\(later.text)")
            broker.clock.advance(20)
            #expect(try await Self.passwordGrant(client, "bobpw").status == .ok)
            // The success cleared the username's failures: four wrong ones and the right one pass.
            for _ in 1...4 { #expect(try await Self.passwordGrant(client, "wrong").status == .badRequest) }
            #expect(try await Self.passwordGrant(client, "bobpw").status == .ok)
            try await broker.engine.storage.maintenance.close()
        }
    }
}
