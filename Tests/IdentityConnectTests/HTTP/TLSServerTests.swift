import AsyncHTTPClient
import Foundation
import IdentityApp
import IdentityConfig
import NIOCore
import NIOSSL
import Testing

/// `server.tls` (docs/configuration.md, "TLS"): the broker serves HTTPS itself with a
/// certificate chain and key from its configuration, with the same request-head limits as over
/// plain HTTP (docs/security.md, rule 8).
@Suite("HTTP: TLS served by the broker")
struct TLSServerTests {
    /// An AsyncHTTPClient that trusts only the test's CA, for the duration of `body`.
    static func withClient(trusting ca: TestCA, _ body: (HTTPClient) async throws -> Void) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(ca.pem.utf8)))
        let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                configuration: .init(tlsConfiguration: tls, redirectConfiguration: .disallow))
        do {
            try await body(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func body(_ response: HTTPClientResponse) async throws -> String {
        String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    @Test("a client trusting the CA gets real answers over HTTPS; the issuer defaults to https; cookies are __Host- and Secure")
    func servesHTTPS() async throws {
        let ca = try TestCA()
        let (certificate, key) = try ca.issue(serial: 1)
        let broker = try await TestBroker.make(files: TestBroker.tlsFiles(certificate: certificate, key: key))
        #expect(broker.prepared.settings.issuer == "https://127.0.0.1:8080")
        try await broker.withTLSServer { port in try await Self.withClient(trusting: ca) { client in
            let base = "https://127.0.0.1:\(port)"
            let health = try await client.execute(HTTPClientRequest(url: base + "/healthz"), timeout: .seconds(15))
            #expect(health.status == .ok)
            let discovery = try await client.execute(HTTPClientRequest(url: base + "/.well-known/openid-configuration"), timeout: .seconds(15))
            let metadata = try JSONSerialization.jsonObject(with: Data(try await Self.body(discovery).utf8)) as? [String: Any]
            #expect(metadata?["issuer"] as? String == "https://127.0.0.1:8080")
            #expect((metadata?["token_endpoint"] as? String)?.hasPrefix("https://") == true)

            let query = "client_id=\(TestBroker.appKey)&redirect_uri=\(TestBroker.redirect)&response_type=code&scope=openid&state=s1"
            var login = HTTPClientRequest(url: base + "/oauth/auth?" + query)
            login.headers.add(name: "Accept", value: "text/html")
            let page = try await client.execute(login, timeout: .seconds(15))
            #expect(page.status == .ok)
            let cookies = page.headers["set-cookie"]
            #expect(!cookies.isEmpty)
            for cookie in cookies {
                #expect(cookie.hasPrefix("__Host-"), "\(cookie)")
                #expect(cookie.contains("Secure"), "\(cookie)")
                #expect(cookie.contains("Path=/"), "\(cookie)")
                #expect(!cookie.lowercased().contains("domain="), "\(cookie)")
            }
        } }
    }

    @Test("TLS 1.1 and older are refused; an untrusted certificate fails the client's handshake")
    func refusesOldProtocols() async throws {
        let ca = try TestCA()
        let (certificate, key) = try ca.issue(serial: 2)
        let broker = try await TestBroker.make(files: TestBroker.tlsFiles(certificate: certificate, key: key))
        try await broker.withTLSServer { port in
            let modern = try await TLSProbe(trusting: ca.pem).connect(port: port)
            #expect(try await modern.peerSerial() == TestCA.serialBytes(2))
            await modern.close()
            await #expect(throws: (any Error).self) {
                _ = try await TLSProbe(trusting: ca.pem, maximumVersion: .tlsv11).connect(port: port)
            }
            let stranger = try TestCA(commonName: "another CA")
            await #expect(throws: (any Error).self) {
                _ = try await TLSProbe(trusting: stranger.pem).connect(port: port)
            }
        }
    }

    @Test("request-head limits hold over TLS: 431 for a huge head, 408 for a slow one, a stalled handshake is closed")
    func headGuardsOverTLS() async throws {
        let ca = try TestCA()
        let (certificate, key) = try ca.issue(serial: 3)
        let files = TestBroker.tlsFiles(certificate: certificate, key: key,
                                        extraServer: "  http: { headTimeout: 2, idleTimeout: 60, maxHeadBytes: 16384 }\n")
        let broker = try await TestBroker.make(files: files)
        try await broker.withTLSServer { port in
            let probe = try TLSProbe(trusting: ca.pem)
            let big = try await probe.exchange(port: port, ["GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "a", count: 17_000))\r\n\r\n"])
            #expect(big.hasPrefix("HTTP/1.1 431"), "\(big.prefix(80))")
            let fits = try await probe.exchange(port: port, ["GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"])
            #expect(fits.hasPrefix("HTTP/1.1 200"), "\(fits.prefix(80))")

            let started = ContinuousClock.now
            let slow = try await probe.exchange(port: port, ["GET /healthz HTTP/1.1\r\n", "Host: x\r\n", "X-A: 1\r\n", "X-B: 2\r\n"],
                                                pause: .seconds(1), timeout: .seconds(10))
            #expect(slow.hasPrefix("HTTP/1.1 408"), "\(slow.prefix(80))")
            #expect(ContinuousClock.now - started < .seconds(8))

            // A TCP connection that never starts a handshake is closed after the head timeout.
            let handshakeStarted = ContinuousClock.now
            let silent = try await RawHTTP.exchange(port: port, "", timeout: .seconds(10))
            #expect(silent.isEmpty)
            #expect(ContinuousClock.now - handshakeStarted < .seconds(6))
        }
    }

    @Test("an idle keep-alive connection over TLS is closed after idleTimeout")
    func idleOverTLS() async throws {
        let ca = try TestCA()
        let (certificate, key) = try ca.issue(serial: 5)
        let files = TestBroker.tlsFiles(certificate: certificate, key: key,
                                        extraServer: "  http: { headTimeout: 10, idleTimeout: 2, maxHeadBytes: 16384 }\n")
        let broker = try await TestBroker.make(files: files)
        try await broker.withTLSServer { port in
            let probe = try TLSProbe(trusting: ca.pem)
            let idle = try await probe.connect(port: port)
            try await idle.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let idleStarted = ContinuousClock.now
            let served = await idle.received(timeout: .seconds(10))
            #expect(served.hasPrefix("HTTP/1.1 200"), "\(served.prefix(80))")
            #expect(idle.isClosed)
            #expect(ContinuousClock.now - idleStarted < .seconds(6))
        }
    }

    @Test("plain HTTP sent to the TLS port gets no HTTP answer")
    func plainHTTPRefused() async throws {
        let ca = try TestCA()
        let (certificate, key) = try ca.issue(serial: 4)
        let broker = try await TestBroker.make(files: TestBroker.tlsFiles(certificate: certificate, key: key))
        try await broker.withTLSServer { port in
            let answer = try await RawHTTP.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", timeout: .seconds(5))
            #expect(!answer.contains("HTTP/1.1 200"))
        }
    }
}
