import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityCore
import NIOCore
import Synchronization
import Testing

/// IdP metadata instead of hand-copied values (docs/connectors/saml.md, "IdP metadata"), against
/// the pysaml2 and SimpleSAMLphp IdPs: sign-in through a metadata URL and a file, signed metadata,
/// a certificate rollover, and the last good copy when the metadata URL fails.
@Suite("SAML IdP metadata against real IdPs")
struct SAMLMetadataPeerTests {
    static let p2 = "http://127.0.0.1:8490"

    /// An auth service configured by metadata only: no remoteService, no idpCertificate.
    static func service(_ id: String, type: String = "saml-post", options: [String]) -> String {
        """
              - id: \(id)
                redirectUri: [ "\(TestBroker.redirect)" ]
                tokenTtl: 86400
                provider:
                  type: \(type)
                  options:
        \(options.map { "            \($0)" }.joined(separator: "\n"))
                  allowedAttributes: [ id, audience, client_token, email, name, groups ]
        """
    }

    static func indentedPEM(_ pem: String) -> String {
        "|\n" + pem.split(separator: "\n").map { "              \($0)" }.joined(separator: "\n")
    }

    /// The outcome counter of `/metrics` for one auth service.
    static func refreshes(_ broker: TestBroker, _ service: String, _ outcome: String) -> Int {
        let line = broker.prepared.metrics.render().split(separator: "\n").first {
            $0.hasPrefix("idconnect_saml_metadata_refreshes_total") && $0.contains("auth_service=\"\(service)\"")
                && $0.contains("outcome=\"\(outcome)\"")
        }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test("sign-in through idpMetadataUrl (both IdPs, both bindings), through idpMetadata from a file, and through signed metadata with idpMetadataCertificate",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func signIn() async throws {
        let ssp = try #require(ProcessInfo.processInfo.environment["IDCONNECT_SAML_SSP_METADATA"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("idc-ssp-metadata-\(UUID().uuidString).xml")
        try (try await SAMLPeer.fetch(ssp)).write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let pysaml2 = try #require(try await SAMLPeer.load("IDCONNECT_SAML_P2_METADATA"))
        let broker = try await SAMLPeerFixture.broker([
            Self.service("p2-url-redirect", type: "saml-redirect", options: ["idpMetadataUrl: \(Self.p2)/metadata"]),
            Self.service("p2-url-post", options: ["idpMetadataUrl: \(Self.p2)/metadata"]),
            Self.service("ssp-url", options: ["idpMetadataUrl: \(ssp)"]),
            Self.service("ssp-file", type: "saml-redirect", options: ["idpMetadata: ${file:\(file.path)}"]),
            Self.service("p2-signed", options: ["idpMetadataUrl: \(Self.p2)/signed/metadata",
                                                "idpMetadataCertificate: \(Self.indentedPEM(pysaml2.certificatePEM))"]),
            Self.service("p2-signed-wrong", options: ["idpMetadataUrl: \(Self.p2)/signed/metadata",
                                                      "idpMetadataCertificate: \(Self.indentedPEM(TestKeyPair.otherIdP.certificatePEM))"]),
        ])
        try await broker.withClient { client in
            for service in ["p2-url-redirect", "p2-url-post", "ssp-url", "ssp-file", "p2-signed"] {
                let view = try await SAMLPeerFixture.signIn(client, authService: service).view
                #expect(view["id"] as? String == "alice@example.org", "\(service)")
                #expect(view["name"] as? String == "Alice Liddell", "\(service)")
            }
            // Metadata whose signature does not verify is never used: the auth service is unavailable, and says why.
            let refused = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", "\(SAMLPeerFixture.appKey).p2-signed-wrong"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]), headers: [.cookie: SAMLPeerFixture.browserCookie])
            let location = try #require(refused.location)
            #expect(queryItems(location)["error"] == "temporarily_unavailable")
            #expect(queryItems(location)["error_description"]?.contains("metadata") == true)
        }
        #expect(Self.refreshes(broker, "p2-url-post", "success") == 1)
        #expect(Self.refreshes(broker, "p2-signed-wrong", "failure") == 1)
        #expect(Self.refreshes(broker, "ssp-file", "success") == 0, "a file is read with the configuration, not refreshed")
    }

    @Test("rollover: the metadata lists two signing certificates; the IdP switches to the second key; sign-in keeps working with no change here",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func rollover() async throws {
        let old = try await SAMLPeer.load(metadata: "\(Self.p2)/rollover/metadata")
        let broker = try await SAMLPeerFixture.broker([
            Self.service("rollover", options: ["idpMetadataUrl: \(Self.p2)/rollover/metadata", "metadataRefresh: 86400"]),
            // The same IdP pinned by hand to the certificate of the day: it breaks at the switch.
            SAMLPeerFixture.service("pinned", old, type: "saml-post"),
        ])
        try await Self.switchKey(new: false)
        do {
            try await broker.withClient { client in
                #expect(try await SAMLPeerFixture.signIn(client, authService: "rollover").view["id"] as? String == "alice@example.org")
                #expect(try await SAMLPeerFixture.signIn(client, authService: "pinned").view["id"] as? String == "alice@example.org")
                try await Self.switchKey(new: true)
                #expect(try await SAMLPeerFixture.signIn(client, authService: "rollover").view["id"] as? String == "alice@example.org")
                let pinned = try await SAMLPeerFixture.postToACS(client, try await SAMLPeerFixture.responseFields(client, authService: "pinned"))
                let location = try #require(pinned.location)
                #expect(queryItems(location)["error_description"]?.contains("does not verify") == true)
            }
        } catch {
            try await Self.switchKey(new: false)
            throw error
        }
        try await Self.switchKey(new: false)
        #expect(Self.refreshes(broker, "rollover", "success") == 1, "no refresh was needed for the switch")
    }

    static func switchKey(new: Bool) async throws {
        var request = HTTPClientRequest(url: "\(p2)/rollover/\(new ? "use-new-key" : "use-old-key")")
        request.method = .POST
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status == .ok)
    }

    /// Serves pysaml2's metadata through a switch: `good`, `down` (HTTP 500) or `garbage` (not metadata).
    final class MetadataRelay: Sendable {
        enum Mode: Sendable { case good, down, garbage }
        let mode = Mutex(Mode.good)
        let fetches = Mutex(0)
        let document: String

        init(document: String) { self.document = document }

        var router: Router<BasicRequestContext> {
            let router = Router()
            router.get("md") { _, _ -> Response in
                self.fetches.withLock { $0 += 1 }
                switch self.mode.withLock({ $0 }) {
                case .good: return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: self.document)))
                case .down: return Response(status: .internalServerError)
                case .garbage: return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "<html>maintenance</html>")))
                }
            }
            return router
        }
    }

    @Test("a failed or invalid refresh keeps the last good copy (counted in /metrics); a restart uses the stored copy; never loaded → temporarily_unavailable",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func lastGoodCopy() async throws {
        let relay = MetadataRelay(document: try await SAMLPeer.fetch("\(Self.p2)/metadata"))
        try await TestHTTPServer.with(relay.router) { base in
            let clock = ManualClock(Date())
            let service = Self.service("relayed", options: ["idpMetadataUrl: \(base)/md", "metadataRefresh: 60"])
            let broker = try await SAMLPeerFixture.broker([service], clock: clock)
            try await broker.withClient { client in
                #expect(try await SAMLPeerFixture.signIn(client, authService: "relayed").view["id"] as? String == "alice@example.org")
                #expect(await broker.engine.connectorMetadata.refresh().isEmpty, "not due yet")
                for mode in [MetadataRelay.Mode.down, .garbage] {
                    relay.mode.withLock { $0 = mode }
                    clock.advance(61)
                    let report = try #require(await broker.engine.connectorMetadata.refresh()["env:\(SAMLPeerFixture.appKey)/relayed"])
                    #expect(report.outcome == .failure && report.usable, "\(mode): \(report)")
                    #expect(try await SAMLPeerFixture.signIn(client, authService: "relayed").view["id"] as? String == "alice@example.org")
                }
                #expect(Self.refreshes(broker, "relayed", "failure") == 2)
                // A restart while the metadata URL is down: the copy stored at the last success.
                relay.mode.withLock { $0 = .down }
                let restarted = try await broker.sibling(registry: SAMLPeerFixture.registry)
                try await restarted.withClient { (client: any TestClientProtocol) async throws in
                    #expect(try await SAMLPeerFixture.signIn(client, authService: "relayed").view["id"] as? String == "alice@example.org")
                }
                #expect(Self.refreshes(restarted, "relayed", "failure") == 1)
            }
            // A broker that never had a copy: this auth service is unavailable and names the metadata.
            let fresh = try await SAMLPeerFixture.broker([service], clock: clock)
            try await fresh.withClient { client in
                let answer = try await client.get("/oauth/auth?" + formEncode([
                    ("client_id", "\(SAMLPeerFixture.appKey).relayed"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                    ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]))
                let location = try #require(answer.location)
                #expect(queryItems(location)["error"] == "temporarily_unavailable")
                #expect(queryItems(location)["error_description"]?.contains("\(base)/md") == true)
                // Back up: the next due refresh brings it in.
                relay.mode.withLock { $0 = .good }
                // (The IdP's clock does not move: a failed fetch is retried after min(metadataRefresh, 300 s).)
                clock.advance(61)
                #expect(await fresh.engine.connectorMetadata.refresh()["env:\(SAMLPeerFixture.appKey)/relayed"]?.outcome == .success)
                #expect(try await SAMLPeerFixture.signIn(client, authService: "relayed").view["id"] as? String == "alice@example.org")
            }
        }
    }

    @Test("instances on one database share a fresh fetch instead of each fetching; config check names the option of metadata it cannot fetch",
          arguments: StoreBackend.allCases)
    func sharedAndChecked(_ backend: StoreBackend) async throws {
        let relay = MetadataRelay(document: IdPMetadataBuilder().xml)
        try await TestHTTPServer.with(relay.router) { base in
            let clock = ManualClock(Date())
            let broker = try await SAMLPeerFixture.broker([Self.service("shared", options: ["idpMetadataUrl: \(base)/md", "metadataRefresh: 60"])],
                                                          clock: clock, backend: backend)
            let sibling = try await broker.sibling(registry: SAMLPeerFixture.registry)
            #expect(relay.fetches.withLock { $0 } == 2, "each instance fetches at start")
            clock.advance(61)
            #expect(await broker.engine.connectorMetadata.refresh().first?.value.outcome == .success)
            #expect(await sibling.engine.connectorMetadata.refresh().first?.value.outcome == .shared)
            #expect(relay.fetches.withLock { $0 } == 3)
            #expect(await BrokerBootstrap.checkMetadata(broker.engine.state.directory).isEmpty)
            relay.mode.withLock { $0 = .garbage }
            let problems = await BrokerBootstrap.checkMetadata(broker.engine.state.directory)
            #expect(problems.count == 1)
            #expect(problems.first?.keyPath.hasSuffix("authServices[0].provider.options.idpMetadataUrl") == true, "\(problems)")
            #expect(problems.first?.reason.contains("\(base)/md") == true, "\(problems)")
        }
    }
}
