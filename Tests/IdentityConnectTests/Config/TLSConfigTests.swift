import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import Testing

/// `server.tls` checking (docs/configuration.md, "TLS"): `config check` and `serve` name the key
/// path of an unreadable, non-PEM or mismatched certificate / key, before storage is touched.
@Suite("Config: server.tls")
struct TLSConfigTests {
    static func files(certificate: String, key: String) -> [String: String] {
        ["server.yaml": "server:\n  tls:\n    certificate: \(certificate)\n    key: \(key)\n",
         "environments.yaml": RefusedConfigTests.environment()]
    }

    /// The problems `config check` prints for these files (what `loadConfig` throws).
    static func problems(_ files: [String: String]) throws -> [ConfigProblem] {
        let directory = try ConfigLoaderTests.directory(files)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
            return []
        } catch let problems as ConfigProblems {
            return problems.problems
        }
    }

    static func pair(_ ca: TestCA, serial: UInt8) throws -> [String: String] {
        let (certificate, key) = try ca.issue(serial: serial)
        return ["tls/cert.pem": certificate, "tls/key.pem": key]
    }

    @Test("a good pair loads; the issuer then defaults to https://host:port")
    func goodPair() throws {
        let ca = try TestCA()
        var files = Self.files(certificate: "${file:tls/cert.pem}", key: "${file:tls/key.pem}").merging(try Self.pair(ca, serial: 1)) { $1 }
        #expect(try Self.problems(files).isEmpty)
        // A chain (server certificate, then the CA) loads too.
        files["tls/cert.pem"]! += "\n" + ca.pem
        let directory = try ConfigLoaderTests.directory(files)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (config, _) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
        #expect(config.server.tls != nil)
        let settings = try BrokerSettings(options: ServeOptions(configDirectory: directory, port: 9443), config: config)
        #expect(settings.issuer == "https://127.0.0.1:9443")
        let plain = try BrokerSettings(options: ServeOptions(configDirectory: directory, port: 9443), config: BrokerConfig(directory: URL(fileURLWithPath: directory)))
        #expect(plain.issuer == "http://127.0.0.1:9443")
        #expect(config.server.tls?.certificateSummary.contains("localhost") == true)
    }

    @Test("unreadable file, non-PEM text, a key where the certificate belongs, a missing key: each named by its key path")
    func refusedFiles() throws {
        let ca = try TestCA()
        let pair = try Self.pair(ca, serial: 2)
        let cases: [(String, [String: String], String, String)] = [
            ("unreadable certificate", Self.files(certificate: "${file:/nonexistent/idc/cert.pem}", key: "${file:tls/key.pem}").merging(pair) { $1 },
             "server.tls.certificate", "cannot read file /nonexistent/idc/cert.pem"),
            ("unreadable key", Self.files(certificate: "${file:tls/cert.pem}", key: "${file:tls/missing.key}").merging(pair) { $1 },
             "server.tls.key", "cannot read file"),
            ("certificate not PEM", Self.files(certificate: "${file:tls/junk.txt}", key: "${file:tls/key.pem}").merging(pair) { $1 }
                .merging(["tls/junk.txt": "not a certificate"]) { $1 },
             "server.tls.certificate", "is not PEM text"),
            ("key in the certificate's place", Self.files(certificate: "${file:tls/key.pem}", key: "${file:tls/key.pem}").merging(pair) { $1 },
             "server.tls.certificate", "not a CERTIFICATE"),
            ("key not PEM", Self.files(certificate: "${file:tls/cert.pem}", key: "${file:tls/cert.pem}").merging(pair) { $1 },
             "server.tls.key", "is not a PEM private key"),
            ("corrupt certificate", Self.files(certificate: "${file:tls/bad.pem}", key: "${file:tls/key.pem}").merging(pair) { $1 }
                .merging(["tls/bad.pem": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"]) { $1 },
             "server.tls.certificate", "not a valid X.509 certificate"),
            ("missing key", ["server.yaml": "server:\n  tls:\n    certificate: ${file:tls/cert.pem}\n",
                             "environments.yaml": RefusedConfigTests.environment()].merging(pair) { $1 },
             "server.tls.key", "is required"),
        ]
        for (name, files, keyPath, reason) in cases {
            let problems = try Self.problems(files)
            #expect(problems.contains { $0.keyPath == keyPath && $0.reason.contains(reason) }, "\(name): \(problems)")
            // The key's PEM text never appears in a message.
            #expect(!problems.contains { $0.reason.contains("BEGIN") && $0.reason.contains("KEY-----\n") }, "\(name)")
        }
    }

    @Test("a key that belongs to another certificate is refused at server.tls.key")
    func mismatchedKey() throws {
        let ca = try TestCA()
        let (certificate, _) = try ca.issue(serial: 3)
        let (_, otherKey) = try ca.issue(serial: 4)
        let files = Self.files(certificate: "${file:tls/cert.pem}", key: "${file:tls/key.pem}")
            .merging(["tls/cert.pem": certificate, "tls/key.pem": otherKey]) { $1 }
        let problems = try Self.problems(files)
        #expect(problems.count == 1)
        #expect(problems.first?.keyPath == "server.tls.key")
        #expect(problems.first?.reason.contains("does not match the certificate") == true, "\(problems)")
        #expect(problems.first?.location.file.hasSuffix("server.yaml") == true)
    }

    @Test("serve refuses a mismatched pair before storage is touched: no database, no vault key file")
    func serveRefusesBeforeStorage() async throws {
        let ca = try TestCA()
        let (certificate, _) = try ca.issue(serial: 5)
        let (_, otherKey) = try ca.issue(serial: 6)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("idc-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let files = Self.files(certificate: "${file:tls/cert.pem}", key: "${file:tls/key.pem}")
            .merging(["tls/cert.pem": certificate, "tls/key.pem": otherKey]) { $1 }
        await #expect(throws: ConfigProblems.self) {
            _ = try await RefusedConfigTests.prepare(files, storage: "sqlite:\(data.path)/db.sqlite")
        }
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }

    @Test("the TLS context source swaps only for a different pair and keeps the old one when the new cannot load")
    func contextSource() throws {
        let ca = try TestCA()
        let first = try ca.issue(serial: 7)
        let second = try ca.issue(serial: 8)
        let source = try TLSContextSource(TLSSettings(certificateChain: first.certificate, privateKey: first.key))
        let original = source.current
        #expect(try !source.replace(with: TLSSettings(certificateChain: first.certificate, privateKey: first.key)))
        #expect(source.current === original)
        #expect(throws: (any Error).self) {
            try source.replace(with: TLSSettings(certificateChain: "junk", privateKey: second.key))
        }
        #expect(source.current === original)
        #expect(try source.replace(with: TLSSettings(certificateChain: second.certificate, privateKey: second.key)))
        #expect(source.current !== original)
    }
}
