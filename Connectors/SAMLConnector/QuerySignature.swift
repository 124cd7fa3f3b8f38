import Crypto
import CryptoExtras
import Foundation

/// Signature algorithms of the HTTP-Redirect binding (SAML Bindings §3.4.4.1, XML-DSig URIs).
enum QuerySignatureAlgorithm: String, Sendable, CaseIterable {
    case rsaSHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
    case rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
    case rsaSHA384 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384"
    case rsaSHA512 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512"
    case ecdsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"
    case ecdsaSHA384 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384"
    case ecdsaSHA512 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512"

    var isRSA: Bool { [.rsaSHA1, .rsaSHA256, .rsaSHA384, .rsaSHA512].contains(self) }
}

/// Verifies the query signature of an HTTP-Redirect message with the IdP's certificates only,
/// over the query parameters exactly as they were sent. Pure Swift (swift-crypto) on keys taken
/// from the certificates' SubjectPublicKeyInfo.
struct QuerySignatureVerifier: Sendable {
    private enum PublicKey: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
    }

    private let keys: [PublicKey]
    let allowSHA1: Bool

    init(certificates: [String], allowSHA1: Bool) throws {
        keys = try certificates.map { pem in
            guard let der = PEM.der(pem), let spki = DER.subjectPublicKeyInfo(ofCertificate: der) else {
                throw IdPMetadataError("a certificate's public key cannot be read")
            }
            let data = Data(spki)
            if let key = try? _RSA.Signing.PublicKey(derRepresentation: data) { return .rsa(key) }
            if let key = try? P256.Signing.PublicKey(derRepresentation: data) { return .p256(key) }
            if let key = try? P384.Signing.PublicKey(derRepresentation: data) { return .p384(key) }
            if let key = try? P521.Signing.PublicKey(derRepresentation: data) { return .p521(key) }
            throw IdPMetadataError("a certificate holds neither an RSA nor a P-256/384/521 key")
        }
        self.allowSHA1 = allowSHA1
    }

    /// Whether `signature` over `signed` verifies with one of the keys under `algorithm`.
    func verify(_ signed: Data, signature: Data, algorithm: QuerySignatureAlgorithm) -> Bool {
        if algorithm == .rsaSHA1 && !allowSHA1 { return false }
        for key in keys {
            switch (key, algorithm) {
            case (.rsa(let key), _) where algorithm.isRSA:
                let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature)
                let valid = switch algorithm {
                case .rsaSHA1: key.isValidSignature(rsa, for: Insecure.SHA1.hash(data: signed), padding: .insecurePKCS1v1_5)
                case .rsaSHA384: key.isValidSignature(rsa, for: SHA384.hash(data: signed), padding: .insecurePKCS1v1_5)
                case .rsaSHA512: key.isValidSignature(rsa, for: SHA512.hash(data: signed), padding: .insecurePKCS1v1_5)
                default: key.isValidSignature(rsa, for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5)
                }
                if valid { return true }
            case (.p256(let key), _) where !algorithm.isRSA:
                if let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
                   key.isValidSignature(ecdsa, for: Self.digest(signed, algorithm)) { return true }
            case (.p384(let key), _) where !algorithm.isRSA:
                if let ecdsa = try? P384.Signing.ECDSASignature(rawRepresentation: signature),
                   key.isValidSignature(ecdsa, for: Self.digest(signed, algorithm)) { return true }
            case (.p521(let key), _) where !algorithm.isRSA:
                if let ecdsa = try? P521.Signing.ECDSASignature(rawRepresentation: signature),
                   key.isValidSignature(ecdsa, for: Self.digest(signed, algorithm)) { return true }
            default:
                continue
            }
        }
        return false
    }

    private static func digest(_ data: Data, _ algorithm: QuerySignatureAlgorithm) -> any Digest {
        switch algorithm {
        case .ecdsaSHA384: SHA384.hash(data: data)
        case .ecdsaSHA512: SHA512.hash(data: data)
        default: SHA256.hash(data: data)
        }
    }
}

/// Just enough DER to find a certificate's SubjectPublicKeyInfo (RFC 5280 §4.1).
enum DER {
    struct Element {
        var tag: UInt8
        var start: Int
        var content: Range<Int>
        var end: Int { content.upperBound }
    }

    static func element(_ bytes: [UInt8], at offset: Int) -> Element? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        var index = offset + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard (1...4).contains(count), index + count <= bytes.count else { return nil }
            length = 0
            for _ in 0..<count {
                length = (length << 8) | Int(bytes[index])
                index += 1
            }
        }
        guard length >= 0, index + length <= bytes.count else { return nil }
        return Element(tag: bytes[offset], start: offset, content: index..<index + length)
    }

    /// The whole SubjectPublicKeyInfo TLV of a DER certificate.
    static func subjectPublicKeyInfo(ofCertificate der: [UInt8]) -> [UInt8]? {
        guard let certificate = element(der, at: 0), certificate.tag == 0x30,
              let tbs = element(der, at: certificate.content.lowerBound), tbs.tag == 0x30 else { return nil }
        var fields: [Element] = []
        var offset = tbs.content.lowerBound
        while offset < tbs.end, fields.count < 8 {
            guard let field = element(der, at: offset) else { return nil }
            fields.append(field)
            offset = field.end
        }
        // [0] version (optional), serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        let index = (fields.first?.tag == 0xA0 ? 1 : 0) + 5
        guard fields.count > index, fields[index].tag == 0x30 else { return nil }
        return Array(der[fields[index].start..<fields[index].end])
    }
}
