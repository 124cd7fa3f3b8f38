import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made by the test itself, and server certificates it signs for
/// `localhost` / `127.0.0.1`, as PEM text: what an operator's `server.tls` files hold.
struct TestCA {
    let key: P256.Signing.PrivateKey
    let certificate: Certificate
    let name: DistinguishedName

    init(commonName: String = "idconnect test CA") throws {
        key = P256.Signing.PrivateKey()
        name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: .init(bytes: [0x01]), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
    }

    /// The CA certificate as PEM (what a client trusts).
    var pem: String { (try? certificate.serializeAsPEM().pemString) ?? "" }

    /// A server certificate for localhost and 127.0.0.1 with `serial`, and its PEM key.
    func issue(serial: UInt8, commonName: String = "localhost") throws -> (certificate: String, key: String) {
        let leafKey = P256.Signing.PrivateKey()
        let now = Date()
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(bytes: [0x10, serial]), publicKey: .init(leafKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: name,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key))
        return (try leaf.serializeAsPEM().pemString, leafKey.pemRepresentation)
    }

    /// The serial `issue(serial:)` gives a certificate, as the bytes a TLS peer reports.
    static func serialBytes(_ serial: UInt8) -> [UInt8] { [0x10, serial] }
}
