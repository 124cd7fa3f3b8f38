import Foundation
import HTTPTypes
import HummingbirdTesting
import IdentityCore
import OAuthEngine
import Testing

/// docs/security.md, rules 6 and 13: throttling is atomic, shared by instances, keyed by the
/// normalized username and the address (IPv6 by /64); registration and authorization requests are
/// limited.
@Suite("Security: throttling and pre-authentication limits")
struct ThrottleSecurityTests {
    static func passwordGrant(_ client: any TestClientProtocol, _ user: String, _ password: String,
                              headers: HTTPFields = [:]) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", user), ("password", password),
                                                   ("client_id", AuthLinkFixture.appKey)],
                                  headers: basicAuth(AuthLinkFixture.appKey, AuthLinkFixture.secret).merging(headers))
    }

    @Test("20 guesses at once reach the identity source at most 5 times", arguments: StoreBackend.allCases)
    func atomic(_ backend: StoreBackend) async throws {
        let authLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: authLog)) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry, backend: backend)
            try await broker.withClient(network: true) { client in
                // Twenty connections at once (the test client would send them one after another).
                let port = try #require(client.port)
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            try await ParallelClient.postForm(port: port, "/oauth/token", [("grant_type", "password"), ("username", "victim"),
                                                                                          ("password", "guess")],
                                                              basic: (AuthLinkFixture.appKey, AuthLinkFixture.secret)).status
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(authLog.count(path: "/login") <= 5, "\(authLog.count(path: "/login")) guesses reached the AuthLink")
                #expect(statuses.filter { $0 == 429 }.count >= 15)
            }
        }
    }

    @Test("case, surrounding spaces and Unicode forms of one username share one counter")
    func normalizedUsername() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            func attempt(_ user: String, _ password: String) async throws -> TestResponse {
                try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", user), ("password", password)],
                                          headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            }
            for spelling in ["Bob", " bob", "BOB ", "bob\t", "bOb"] { _ = try await attempt(spelling, "wrong") }
            let held = try await attempt("bob", "bobpw")
            #expect(held.status == .tooManyRequests)
            #expect(held.headers[.retryAfter] == "30")
        }
    }

    @Test("two instances on one PostgreSQL database count one username together",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func sharedAcrossInstances() async throws {
        let first = try await TestBroker.make(backend: .postgres)
        let second = try await first.sibling()
        try await first.withClient { one in
            try await second.withClient { two in
                func attempt(_ client: any TestClientProtocol, _ password: String) async throws -> TestResponse {
                    try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "bob"), ("password", password)],
                                              headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
                }
                for index in 0..<5 { _ = try await attempt(index % 2 == 0 ? one : two, "wrong") }
                #expect(try await attempt(two, "bobpw").status == .tooManyRequests)
                #expect(try await attempt(one, "bobpw").status == .tooManyRequests)
            }
        }
    }

    @Test("IPv6 clients are counted by /64: rotating addresses inside one /64 does not escape the address limit")
    func ipv6Prefix() async throws {
        #expect(ClientAddress.throttleKey("2001:db8:1:2:aaaa::1") == ClientAddress.throttleKey("2001:db8:1:2:ffff:1:2:3"))
        #expect(ClientAddress.throttleKey("2001:db8:1:2::1") != ClientAddress.throttleKey("2001:db8:1:3::1"))
        #expect(ClientAddress.throttleKey("::ffff:192.0.2.7") == "192.0.2.7")
        var files = TestBroker.defaultConfig()
        files["server.yaml"] = files["server.yaml"]!.replacingOccurrences(of: "server:\n", with: "server:\n  trustedProxies: [ 127.0.0.1 ]\n")
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient(network: true) { client in
            func attempt(_ user: String, _ password: String, from address: String) async throws -> TestResponse {
                try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", user), ("password", password)],
                                          headers: basicAuth(TestBroker.appKey, TestBroker.appSecret)
                                            .merging([HTTPField.Name("X-Forwarded-For")!: address]))
            }
            for index in 0..<50 { _ = try await attempt("guess\(index)", "wrong", from: "2001:db8:1:2::\(String(index, radix: 16))") }
            #expect(try await attempt("alice", "alicepw", from: "2001:db8:1:2:ffff::9").status == .tooManyRequests)
            #expect(try await attempt("alice", "alicepw", from: "2001:db8:1:3::1").status == .ok)
        }
    }

    @Test("usernames over 256 bytes are refused before the connector and count nothing")
    func longUsernames() async throws {
        let authLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: authLog)) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                for index in 0..<10 {
                    let answer = try await Self.passwordGrant(client, String(repeating: "u", count: 300) + "\(index)", "x")
                    #expect(answer.status == .badRequest && answer.json["error"] as? String == "access_denied")
                }
                #expect(authLog.count(path: "/login") == 0)
                // Nothing was counted for the address either.
                #expect(try await Self.passwordGrant(client, "ok", "pw").status == .ok)
            }
        }
    }

    @Test("registration: 429 with Retry-After past the per-address limit")
    func registrationLimit() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient(network: true) { client in
            var statuses: [Int] = []
            for _ in 0..<25 {
                let statement = try RegistrationTests.statement(exp: broker.clock.now() + 600)
                statuses.append(Int(try await RegistrationTests.register(client, body: try RegistrationTests.body(statement)).status.code))
            }
            #expect(statuses.prefix(20).allSatisfy { $0 == 201 })
            #expect(statuses.suffix(5).allSatisfy { $0 == 429 })
            let statement = try RegistrationTests.statement(exp: broker.clock.now() + 600)
            let refused = try await RegistrationTests.register(client, body: try RegistrationTests.body(statement))
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] != nil)
            broker.clock.advance(61)
            let again = try await RegistrationTests.register(client, body: try RegistrationTests.body(RegistrationTests.statement(exp: broker.clock.now() + 600)))
            #expect(again.status == .created)
        }
    }

    @Test("a flood of unauthenticated authorization requests from one address is refused past the limit (3,000 requests)")
    func authorizationFlood() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient(network: true) { client in
            let state = String(repeating: "s", count: 1024)
            var refused = 0
            for _ in 0..<3000 {
                let answer = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect),
                                                                       ("response_type", "code"), ("state", state)])
                if answer.status == .tooManyRequests {
                    refused += 1
                    #expect(answer.headers[.retryAfter] != nil)
                }
            }
            let stored = try broker.pendingAuthorizationBytes()
            #expect(refused >= 2500, "\(refused) refused")
            #expect(stored < 1 << 20, "\(stored) bytes of pending authorizations stored")
        }
    }
}
