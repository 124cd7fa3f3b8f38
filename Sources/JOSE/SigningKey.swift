import Crypto
import CryptoExtras
import Foundation
import IdentityCore

/// A private key the broker signs its own tokens with, and its id. Signing and verification are
/// plain value operations, safe on any thread in parallel. RS256 (RSA-2048) or ES256 (P-256):
/// the algorithms `signing.algorithm` offers. RS256 signatures are made by OpenSSL 3 when it can
/// read the key (`OpenSSLRSASigner`, about twice as fast here), else by swift-crypto; both make
/// the same bytes.
public struct SigningKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    public let kid: String
    public let algorithm: JOSEAlgorithm
    let material: Material
    /// The same RSA key loaded into OpenSSL, which makes its signatures.
    let openSSL: OpenSSLRSASigner?

    /// The algorithms the broker signs with.
    public static let signingAlgorithms: Set<JOSEAlgorithm> = [.rs256, .es256]

    public struct UnsupportedAlgorithm: Error, CustomStringConvertible {
        public let algorithm: JOSEAlgorithm
        public var description: String { "the broker does not sign with \(algorithm.rawValue); use RS256 or ES256" }
    }

    /// Generates a new key: RSA-2048 or P-256. RSA generation takes a while; call it off the event loop.
    public static func generate(_ algorithm: JOSEAlgorithm) throws -> SigningKey {
        let kid = Secrets.randomToken(bytes: 12)
        switch algorithm {
        case .rs256: return SigningKey(kid: kid, algorithm: .rs256, material: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
        case .es256: return SigningKey(kid: kid, algorithm: .es256, material: .p256(P256.Signing.PrivateKey()))
        default: throw UnsupportedAlgorithm(algorithm: algorithm)
        }
    }

    /// Restores a key from its PKCS#8 PEM.
    public init(kid: String, algorithm: JOSEAlgorithm, pem: String) throws {
        switch algorithm {
        case .rs256: self.init(kid: kid, algorithm: algorithm, material: .rsa(try _RSA.Signing.PrivateKey(pemRepresentation: pem)))
        case .es256: self.init(kid: kid, algorithm: algorithm, material: .p256(try P256.Signing.PrivateKey(pemRepresentation: pem)))
        default: throw UnsupportedAlgorithm(algorithm: algorithm)
        }
    }

    init(kid: String, algorithm: JOSEAlgorithm, material: Material, useOpenSSL: Bool = true) {
        self.kid = kid
        self.algorithm = algorithm
        self.material = material
        if useOpenSSL, case .rsa(let key) = material {
            openSSL = OpenSSLRSASigner(pem: key.pkcs8PEMRepresentation)
        } else {
            openSSL = nil
        }
    }

    /// This key signing with swift-crypto (BoringSSL) only: what `idconnect bench signing`
    /// compares OpenSSL with.
    public var withoutOpenSSL: SigningKey { SigningKey(kid: kid, algorithm: algorithm, material: material, useOpenSSL: false) }

    /// Which library makes this key's signatures.
    public var signingLibrary: String { openSSL == nil ? "swift-crypto" : "OpenSSL" }

    /// PKCS#8 PEM of the private key (sealed by the vault before it is stored).
    public var pem: String {
        switch material {
        case .rsa(let key): key.pkcs8PEMRepresentation
        case .p256(let key): key.pemRepresentation
        }
    }

    public func sign(_ data: Data) throws -> Data {
        switch material {
        case .rsa(let key):
            if let openSSL { return try openSSL.sign(data) }
            return try key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
        case .p256(let key): return try key.signature(for: data).rawRepresentation
        }
    }

    /// The public half, as published in the JWKS and used to verify the broker's tokens.
    public var publicKey: JSONWebKey {
        switch material {
        case .rsa(let key): JSONWebKey(kid: kid, algorithm: algorithm.rawValue, material: .rsa(key.publicKey))
        case .p256(let key): JSONWebKey(kid: kid, algorithm: algorithm.rawValue, material: .p256(key.publicKey))
        }
    }
}
