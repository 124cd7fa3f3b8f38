import Crypto
import CryptoExtras
import Foundation
import IdentityCore

/// Algorithms the broker signs its tokens with (SPEC §2 `signing.algorithm`).
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256"
    case es256 = "ES256"
}

/// A private signing key with its id. Signing and verification are plain value operations,
/// safe to run on any thread in parallel.
public struct SigningKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    public let kid: String
    public let algorithm: JWSAlgorithm
    let material: Material

    /// Generates a new key: RSA-2048 or P-256. RSA generation takes a while; call it off the event loop.
    public static func generate(_ algorithm: JWSAlgorithm) throws -> SigningKey {
        let kid = Secrets.randomToken(bytes: 12)
        switch algorithm {
        case .rs256: return SigningKey(kid: kid, algorithm: .rs256, material: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
        case .es256: return SigningKey(kid: kid, algorithm: .es256, material: .p256(P256.Signing.PrivateKey()))
        }
    }

    /// Restores a key from its PKCS#8 PEM.
    public init(kid: String, algorithm: JWSAlgorithm, pem: String) throws {
        self.kid = kid
        self.algorithm = algorithm
        switch algorithm {
        case .rs256: material = .rsa(try _RSA.Signing.PrivateKey(pemRepresentation: pem))
        case .es256: material = .p256(try P256.Signing.PrivateKey(pemRepresentation: pem))
        }
    }

    init(kid: String, algorithm: JWSAlgorithm, material: Material) {
        self.kid = kid
        self.algorithm = algorithm
        self.material = material
    }

    /// PKCS#8 PEM of the private key (sealed by the vault before it is stored).
    public var pem: String {
        switch material {
        case .rsa(let key): key.pkcs8PEMRepresentation
        case .p256(let key): key.pemRepresentation
        }
    }

    public func sign(_ data: Data) throws -> Data {
        switch material {
        case .rsa(let key): try key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
        case .p256(let key): try key.signature(for: data).rawRepresentation
        }
    }

    public var publicKey: VerificationKey {
        switch material {
        case .rsa(let key): VerificationKey(kid: kid, algorithm: algorithm, material: .rsa(key.publicKey))
        case .p256(let key): VerificationKey(kid: kid, algorithm: algorithm, material: .p256(key.publicKey))
        }
    }
}

/// A public key that checks the broker's signatures and is published in the JWKS.
public struct VerificationKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    public let kid: String
    public let algorithm: JWSAlgorithm
    let material: Material

    /// True when `signature` over `data` is valid for this key.
    public func verify(_ signature: Data, for data: Data) -> Bool {
        switch material {
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data,
                                        padding: .insecurePKCS1v1_5)
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        }
    }

    /// The JWK (RFC 7517) for the JWKS document.
    public var jwk: [String: String] {
        var fields = ["kid": kid, "alg": algorithm.rawValue, "use": "sig"]
        switch material {
        case .rsa(let key):
            if let primitives = try? key.getKeyPrimitives() {
                fields["kty"] = "RSA"
                fields["n"] = Base64URL.encode(primitives.modulus)
                fields["e"] = Base64URL.encode(primitives.publicExponent)
            }
        case .p256(let key):
            let raw = key.rawRepresentation
            fields["kty"] = "EC"
            fields["crv"] = "P-256"
            fields["x"] = Base64URL.encode(raw.prefix(32))
            fields["y"] = Base64URL.encode(raw.suffix(32))
        }
        return fields
    }
}
