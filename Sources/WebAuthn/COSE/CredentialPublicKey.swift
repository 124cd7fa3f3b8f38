import Crypto
import CryptoExtras
import Foundation

/// A passkey's public key, read from the COSE_Key bytes that registration returns
/// and the caller stores (``RegisteredCredential/publicKey``).
///
/// Only ES256 (EC2 key on P-256) and RS256 (RSA key of at least 2048 bits) are
/// accepted, matching the algorithms registration offers.
public struct CredentialPublicKey: Sendable {
    /// The algorithm the key is bound to; signatures are checked with it only.
    public let algorithm: COSEAlgorithm
    private let key: Key

    private enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    /// The RSA sizes accepted. The upper bound only stops absurd keys from costing
    /// verification time; real authenticators use 2048.
    static let rsaBits = 2048...16384

    /// Reads a COSE_Key as stored after registration.
    public init(coseKey bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw .publicKeyMalformed(error.description)
        }
        try self.init(cbor: value)
    }

    init(cbor: CBORValue) throws(WebAuthnError) {
        guard let map = cbor.mapValue else { throw .publicKeyMalformed("it is not a CBOR map.") }
        guard let algorithmNumber = map[.int(COSEKeyLabel.algorithm)]?.intValue else {
            throw .publicKeyMalformed("it names no algorithm.")
        }
        guard let algorithm = COSEAlgorithm(rawValue: algorithmNumber) else {
            throw .unsupportedAlgorithm(algorithmNumber)
        }
        let keyType = map[.int(COSEKeyLabel.keyType)]?.intValue
        switch algorithm {
        case .es256:
            guard keyType == COSEKeyType.ec2 else { throw .publicKeyMalformed("an ES256 key must have key type EC2 (2).") }
            key = .p256(try Self.p256Key(map))
        case .rs256:
            guard keyType == COSEKeyType.rsa else { throw .publicKeyMalformed("an RS256 key must have key type RSA (3).") }
            key = .rsa(try Self.rsaKey(map))
        }
        self.algorithm = algorithm
    }

    private static func p256Key(_ map: [CBORValue: CBORValue]) throws(WebAuthnError) -> P256.Signing.PublicKey {
        guard map[.int(COSEKeyLabel.curveOrModulus)]?.intValue == COSECurve.p256 else {
            throw .publicKeyMalformed("an ES256 key must be on curve P-256 (1).")
        }
        guard let x = map[.int(COSEKeyLabel.xOrExponent)]?.bytesValue, x.count == 32,
              let y = map[.int(COSEKeyLabel.y)]?.bytesValue, y.count == 32 else {
            throw .publicKeyMalformed("a P-256 key needs x and y coordinates of 32 bytes each.")
        }
        do {
            return try P256.Signing.PublicKey(rawRepresentation: x + y)
        } catch {
            throw .publicKeyMalformed("the coordinates are not a point on P-256.")
        }
    }

    private static func rsaKey(_ map: [CBORValue: CBORValue]) throws(WebAuthnError) -> _RSA.Signing.PublicKey {
        guard let modulus = map[.int(COSEKeyLabel.curveOrModulus)]?.bytesValue,
              let exponent = map[.int(COSEKeyLabel.xOrExponent)]?.bytesValue, !exponent.isEmpty else {
            throw .publicKeyMalformed("an RSA key needs a modulus (n) and a public exponent (e).")
        }
        let bits = bitLength(of: modulus)
        guard bits >= rsaBits.lowerBound else { throw .rsaKeyTooSmall(bits: bits) }
        guard bits <= rsaBits.upperBound else {
            throw .publicKeyMalformed("the RSA modulus has \(bits) bits; at most \(rsaBits.upperBound) are accepted.")
        }
        do {
            return try _RSA.Signing.PublicKey(n: modulus, e: exponent)
        } catch {
            throw .publicKeyMalformed("the RSA modulus and exponent do not form a valid public key.")
        }
    }

    /// Significant bits of a big-endian unsigned integer.
    private static func bitLength(of bytes: [UInt8]) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.count - first - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    /// Checks `signature` over `message` with this key's algorithm: DER-encoded
    /// ECDSA with SHA-256 for ES256, PKCS#1 v1.5 with SHA-256 for RS256. A signature
    /// that cannot even be parsed is simply invalid.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch key {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .rsa(let key):
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(parsed, for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        }
    }
}
