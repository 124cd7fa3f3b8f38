import Foundation
import IdentityApp
import IdentityConfig
import Logging
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A renewed certificate is picked up on SIGHUP (docs/operations.md, "TLS"): connections
/// accepted after the reload get it, open connections keep working, a bad renewal is refused and
/// the served certificate stays.
@Suite("Operations: TLS certificate reload")
struct TLSReloadTests {
    static let quiet: Logger = {
        var logger = Logger(label: "tls-reload")
        logger.logLevel = .critical
        return logger
    }()

    static func renew(_ directory: URL, certificate: String, key: String) throws {
        try certificate.write(to: directory.appendingPathComponent("tls/server.pem"), atomically: true, encoding: .utf8)
        try key.write(to: directory.appendingPathComponent("tls/server.key"), atomically: true, encoding: .utf8)
    }

    /// Asks for /healthz on `connection`; everything received on it so far (with `close`: until
    /// the server closed it after answering).
    static func healthOn(_ connection: TLSProbe.Connection, close: Bool) async throws -> String {
        try await connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\(close ? "Connection: close\r\n" : "")\r\n")
        return await connection.received(containing: close ? nil : "\r\n\r\n", timeout: .seconds(10))
    }

    /// How many 200 answers `text` holds.
    static func answers(_ text: String) -> Int { text.components(separatedBy: "HTTP/1.1 200").count - 1 }

    @Test("reload swaps the certificate for new connections; an open connection keeps its own and keeps working")
    func reloadInProcess() async throws {
        let ca = try TestCA()
        let first = try ca.issue(serial: 10)
        let broker = try await TestBroker.make(files: TestBroker.tlsFiles(certificate: first.certificate, key: first.key))
        try await broker.withTLSServer { port in
            let probe = try TLSProbe(trusting: ca.pem)
            let open = try await probe.connect(port: port)
            #expect(try await Self.healthOn(open, close: false).hasPrefix("HTTP/1.1 200"))
            #expect(try await open.peerSerial() == TestCA.serialBytes(10))

            let second = try ca.issue(serial: 11)
            try Self.renew(broker.configDirectory, certificate: second.certificate, key: second.key)
            #expect(await ReloadService(prepared: broker.prepared, logger: Self.quiet).reload())
            let fresh = try await probe.connect(port: port)
            #expect(try await fresh.peerSerial() == TestCA.serialBytes(11))
            await fresh.close()

            #expect(!open.isClosed)
            #expect(try await open.peerSerial() == TestCA.serialBytes(10))
            #expect(Self.answers(try await Self.healthOn(open, close: true)) == 2)

            // A renewal whose key is not the certificate's is refused; the served pair stays.
            let third = try ca.issue(serial: 12)
            try Self.renew(broker.configDirectory, certificate: third.certificate, key: first.key)
            #expect(await !ReloadService(prepared: broker.prepared, logger: Self.quiet).reload())
            let after = try await probe.connect(port: port)
            #expect(try await after.peerSerial() == TestCA.serialBytes(11))
            await after.close()
        }
    }

    @Test("certificates swapped while connections are being accepted: every handshake completes with one whole pair")
    func swapUnderConcurrency() async throws {
        let ca = try TestCA()
        let pairs = try (30..<36).map { try ca.issue(serial: UInt8($0)) }
        let broker = try await TestBroker.make(files: TestBroker.tlsFiles(certificate: pairs[0].certificate, key: pairs[0].key))
        let source = try #require(broker.prepared.tls)
        try await broker.withTLSServer { port in
            let probe = try TLSProbe(trusting: ca.pem)
            let serials = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                group.addTask {
                    for pair in pairs.dropFirst() {
                        try source.replace(with: TLSSettings(certificateChain: pair.certificate, privateKey: pair.key))
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    return []
                }
                for _ in 0..<40 {
                    group.addTask {
                        let connection = try await probe.connect(port: port)
                        let serial = try await connection.peerSerial()
                        let answer = try await Self.healthOn(connection, close: true)
                        #expect(answer.contains("HTTP/1.1 200"))
                        return serial
                    }
                }
                var seen: [[UInt8]] = []
                for try await serial in group where !serial.isEmpty { seen.append(serial) }
                return seen
            }
            #expect(serials.count == 40)
            let issued = Set((30..<36).map { TestCA.serialBytes(UInt8($0)) })
            #expect(serials.allSatisfy { issued.contains($0) })
            let fresh = try await probe.connect(port: port)
            #expect(try await fresh.peerSerial() == TestCA.serialBytes(35))
            await fresh.close()
        }
    }

    @Test("the idconnect binary reloads its certificate on SIGHUP without dropping an open connection")
    func sighupReloadsBinary() async throws {
        let binary = SampleAuthLink.root.appendingPathComponent(".build/debug/idconnect")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw SampleAuthLink.SampleMissing(description: "\(binary.path) is missing: run `swift build` (scripts/test.sh does) before the tests")
        }
        let ca = try TestCA()
        let first = try ca.issue(serial: 20)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idc-sighup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config")
        for (name, content) in TestBroker.tlsFiles(certificate: first.certificate, key: first.key) {
            let url = config.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        let probe = try TLSProbe(trusting: ca.pem)
        let (process, port, open) = try await ListeningChild.start("idconnect", spawn: { port in
            try ChildProcess.spawn(binary.path, [
                "serve", "--config", config.path, "--port", "\(port)",
                "--storage", "sqlite:\(directory.appendingPathComponent("data/db.sqlite").path)",
            ], environment: ["TEST_APP_SECRET": TestBroker.appSecret], keepStderr: false)
        }, ready: { port in try? await probe.connect(port: port) })
        defer { process.terminate() }
        #expect(try await Self.healthOn(open, close: false).hasPrefix("HTTP/1.1 200"))
        #expect(try await open.peerSerial() == TestCA.serialBytes(20))

        let second = try ca.issue(serial: 21)
        try Self.renew(config, certificate: second.certificate, key: second.key)
        kill(process.pid, SIGHUP)
        var served: [UInt8] = []
        for _ in 0..<100 {
            let fresh = try await probe.connect(port: port)
            served = try await fresh.peerSerial()
            await fresh.close()
            if served == TestCA.serialBytes(21) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(served == TestCA.serialBytes(21))
        #expect(process.isRunning)
        #expect(Self.answers(try await Self.healthOn(open, close: true)) == 2)
    }
}
