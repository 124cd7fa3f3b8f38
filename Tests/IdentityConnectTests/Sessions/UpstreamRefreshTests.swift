import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import StaticConnector
import Synchronization
import Testing

/// A password connector whose upstream token expires and whose refresh is scripted, counting calls.
final class ScriptedRefreshingConnector: PasswordConnector, RefreshingConnector {
    enum Mode: Sendable { case refresh, end, fail }
    let clock: any BrokerClock
    let mode = Mutex<Mode>(.refresh)
    let refreshCalls = Atomic<Int>(0)

    init(clock: any BrokerClock) { self.clock = clock }

    func login(_ credentials: PasswordCredentials) async throws -> LoginResult {
        .authenticated(ConnectorIdentity(userId: credentials.username, attributes: [:],
                                         upstream: UpstreamToken(token: "upstream-1", refreshToken: "r", expiresAt: clock.now().addingTimeInterval(120))))
    }

    func refresh(userId: String, upstream: UpstreamToken) async throws -> RefreshOutcome {
        let count = refreshCalls.add(1, ordering: .relaxed).newValue
        try await Task.sleep(for: .milliseconds(50))
        switch mode.withLock({ $0 }) {
        case .refresh:
            return .refreshed(UpstreamToken(token: "upstream-\(count + 1)", expiresAt: clock.now().addingTimeInterval(120)), attributes: nil)
        case .end: return .ended(reason: "The account was disabled.")
        case .fail: throw ConnectorFailure(.unavailable, "The identity source is unavailable.")
        }
    }
}

struct ScriptedRefreshingFactory: ConnectorFactory {
    let connector: ScriptedRefreshingConnector
    var providerTypes: [String] { ["custom"] }
    func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector { connector }
}

@Suite("TTL-driven upstream refresh (docs/protocol.md, \"Sessions and upstream tokens\")")
struct UpstreamRefreshTests {
    static let files: [String: String] = {
        var files = TestBroker.defaultConfig()
        files["environments/custom.yaml"] = """
        environments:
          - appKey: kid_up
            appSecret: upstream-secret-1234
            authServices:
              - id: link
                redirectUri: [ "\(TestBroker.redirect)" ]
                provider: { type: custom, datalinkHeaderMapping: { client_token: X-Kinvey-Auth } }
        """
        return files
    }()

    static func setUp() async throws -> (TestBroker, ScriptedRefreshingConnector) {
        let clock = ManualClock(Date())
        let connector = ScriptedRefreshingConnector(clock: clock)
        let broker = try await TestBroker.make(files: files, registry: .init([StaticConnectorFactory(), ScriptedRefreshingFactory(connector: connector)]), clock: clock)
        return (broker, connector)
    }

    static func signIn(_ client: any TestClientProtocol) async throws -> [String: Any] {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "carol"), ("password", "pw")],
                                  headers: basicAuth("kid_up", "upstream-secret-1234")).json
    }

    @Test("100 concurrent validates of an expired session → exactly one upstream refresh, all see the new token")
    func singleFlight() async throws {
        let (broker, connector) = try await Self.setUp()
        try await broker.withClient { client in
            let access = try #require(try await Self.signIn(client)["access_token"] as? String)
            let before = try await Flows.validate(client, access).json
            #expect(before["client_token"] as? String == Data("upstream-1".utf8).base64EncodedString())
            #expect((before["datalink_headers"] as? [String: String])?["X-Kinvey-Auth"] == Data("upstream-1".utf8).base64EncodedString())
            #expect(connector.refreshCalls.load(ordering: .relaxed) == 0)
            broker.clock.advance(100)  // within 30 s of expiry
            let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<100 { group.addTask { try await Flows.validate(client, access).json["client_token"] as? String } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(connector.refreshCalls.load(ordering: .relaxed) == 1)
            #expect(Set(tokens) == [Data("upstream-2".utf8).base64EncodedString()])
        }
    }

    @Test("a transient failure answers 503 and keeps the session; a definitive refusal ends it")
    func failureModes() async throws {
        let (broker, connector) = try await Self.setUp()
        try await broker.withClient { client in
            let tokens = try await Self.signIn(client)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            broker.clock.advance(121)
            connector.mode.withLock { $0 = .fail }
            let down = try await Flows.validate(client, access)
            #expect(down.status == .serviceUnavailable)
            #expect(down.json["error"] as? String == "temporarily_unavailable")
            connector.mode.withLock { $0 = .refresh }
            #expect(try await Flows.validate(client, access).status == .ok)
            broker.clock.advance(121)
            connector.mode.withLock { $0 = .end }
            let refreshed = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                                      headers: basicAuth("kid_up", "upstream-secret-1234"))
            #expect(refreshed.json["error"] as? String == "invalid_grant")
            #expect(try await Flows.validate(client, access).status == .unauthorized)
        }
    }
}
