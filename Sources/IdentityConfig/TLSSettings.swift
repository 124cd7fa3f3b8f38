import Foundation
import IdentityCore
import X509

/// `server.tls`: the certificate chain and private key the broker serves HTTPS with
/// (docs/configuration.md, "TLS"). Both are PEM text, usually `${file:...}` references, so a
/// SIGHUP re-reads renewed files. Absent: the broker speaks plain HTTP (behind a TLS proxy).
public struct TLSSettings: Sendable, Equatable {
    /// PEM certificates, the server's own first, then the intermediates.
    public var certificateChain: String
    /// The PEM private key (PKCS#8, or RSA / EC "traditional" form) of the first certificate.
    public var privateKey: String
    /// Where `certificate` was configured, for messages about it.
    public var certificateSource: ConfigProblem
    /// Where `key` was configured.
    public var keySource: ConfigProblem

    public init(certificateChain: String, privateKey: String,
                certificateSource: ConfigProblem = .init(location: .init(file: "", line: 0), keyPath: "server.tls.certificate", reason: ""),
                keySource: ConfigProblem = .init(location: .init(file: "", line: 0), keyPath: "server.tls.key", reason: "")) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.certificateSource = certificateSource
        self.keySource = keySource
    }

    /// The same settings with the PEM text only (locations do not make two settings differ).
    public static func == (lhs: TLSSettings, rhs: TLSSettings) -> Bool {
        lhs.certificateChain == rhs.certificateChain && lhs.privateKey == rhs.privateKey
    }
}

extension TLSSettings {
    /// "subject …, serial …, valid until …" of the served certificate, for the start-up summary
    /// and the reload log line.
    public var certificateSummary: String {
        guard let leaf = try? TLSMaterial.check(certificateChain: certificateChain, privateKey: privateKey).first else {
            return "unreadable certificate"
        }
        let until = ISO8601DateFormatter().string(from: leaf.notValidAfter)
        return "\(leaf.subject), serial \(leaf.serialNumber), valid until \(until)"
    }
}

/// Reads and checks a PEM certificate chain and its private key without touching anything
/// else: what `config check` reports and `serve` refuses to start on.
public enum TLSMaterial {
    /// A reason the pair cannot be served, and whether it concerns the key (else the certificate).
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var aboutKey: Bool
        public var description: String
    }

    /// The parsed chain (server certificate first) after checking that `privateKey` is the
    /// private half of its first certificate.
    public static func check(certificateChain: String, privateKey: String) throws -> [Certificate] {
        let chain = try certificates(certificateChain)
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: privateKey)
        } catch {
            let found = pemLabels(privateKey)
            if found.contains(where: { $0.contains("ENCRYPTED") }) || privateKey.contains("Proc-Type: 4,ENCRYPTED") {
                throw Problem(aboutKey: true, description:
                    "is an encrypted private key: the broker reads unencrypted PEM keys (decrypt it with `openssl pkey`, keep the file 0600)")
            }
            let what = found.isEmpty ? "no PEM block" : "a PEM \(found.joined(separator: ", ")) block that does not parse"
            throw Problem(aboutKey: true, description:
                "is not a PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY): found \(what)")
        }
        guard key.publicKey == chain[0].publicKey else {
            throw Problem(aboutKey: true, description:
                "does not match the certificate (server.tls.certificate, subject \(chain[0].subject)): it is the private key of another certificate")
        }
        return chain
    }

    private static func certificates(_ pem: String) throws -> [Certificate] {
        let blocks = pemBlocks(pem)
        guard !blocks.isEmpty else {
            throw Problem(aboutKey: false, description: "is not PEM text: expected one or more -----BEGIN CERTIFICATE----- blocks")
        }
        var chain: [Certificate] = []
        for (index, block) in blocks.enumerated() {
            guard block.label == "CERTIFICATE" else {
                throw Problem(aboutKey: false, description:
                    "block \(index + 1) is a PEM \(block.label), not a CERTIFICATE (the key belongs in server.tls.key)")
            }
            do {
                chain.append(try Certificate(pemEncoded: block.text))
            } catch {
                throw Problem(aboutKey: false, description: "block \(index + 1) is not a valid X.509 certificate")
            }
        }
        return chain
    }

    private static let blockPattern = try! NSRegularExpression(
        pattern: "-----BEGIN ([A-Z0-9 ]+)-----[A-Za-z0-9+/=\\s]*?-----END \\1-----")

    /// The complete PEM blocks in `text`, with their labels.
    static func pemBlocks(_ text: String) -> [(label: String, text: String)] {
        let nsText = text as NSString
        return blockPattern.matches(in: text, range: NSRange(location: 0, length: nsText.length)).map {
            (nsText.substring(with: $0.range(at: 1)), nsText.substring(with: $0.range))
        }
    }

    /// The labels of the PEM blocks in `text` (`-----BEGIN <label>-----`), to say what was found.
    static func pemLabels(_ text: String) -> [String] {
        text.components(separatedBy: "-----BEGIN ").dropFirst().compactMap { rest in
            rest.range(of: "-----").map { String(rest[..<$0.lowerBound]) }
        }
    }
}
