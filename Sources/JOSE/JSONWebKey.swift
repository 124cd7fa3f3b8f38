import Crypto
import CryptoExtras
import Foundation
import IdentityCore

/// One public key (RFC 7517): RSA or EC P-256/P-384, from a JWKS or from one of the broker's
/// own signing keys. Keys of other types, private keys and symmetric (`oct`) keys are not
/// represented: they can never verify anything here.
public struct JSONWebKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
    }

    public let kid: String?
    /// The `alg` the key is restricted to, when the JWKS says so.
    public let algorithm: String?
    /// `use`, when present (only `sig` keys verify signatures).
    public let use: String?
    let material: Material

    init(kid: String?, algorithm: String?, material: Material) {
        self.kid = kid
        self.algorithm = algorithm
        use = "sig"
        self.material = material
    }

    /// Parses one JWK; nil for anything unusable (unknown `kty`/`crv`, bad coordinates, RSA keys
    /// under 2048 bits, encryption-only keys).
    public init?(_ fields: [String: JSONValue]) {
        kid = fields["kid"]?.stringValue
        algorithm = fields["alg"]?.stringValue
        use = fields["use"]?.stringValue
        if let use, use != "sig" { return nil }
        switch fields["kty"]?.stringValue {
        case "RSA":
            guard let n = fields["n"]?.stringValue.flatMap(Base64URL.decode),
                  let e = fields["e"]?.stringValue.flatMap(Base64URL.decode),
                  let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { return nil }
            material = .rsa(key)
        case "EC":
            guard let x = fields["x"]?.stringValue.flatMap(Base64URL.decode),
                  let y = fields["y"]?.stringValue.flatMap(Base64URL.decode) else { return nil }
            switch fields["crv"]?.stringValue {
            case "P-256":
                guard x.count == 32, y.count == 32, let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else { return nil }
                material = .p256(key)
            case "P-384":
                guard x.count == 48, y.count == 48, let key = try? P384.Signing.PublicKey(rawRepresentation: x + y) else { return nil }
                material = .p384(key)
            default: return nil
            }
        default: return nil
        }
    }

    /// True when this key may be used with `algorithm` at all (key type, curve, its own `alg`).
    public func fits(_ algorithm: JOSEAlgorithm) -> Bool {
        if let restricted = self.algorithm, restricted != algorithm.rawValue { return false }
        switch (material, algorithm) {
        case (.rsa, .rs256), (.rsa, .rs384), (.rsa, .rs512), (.rsa, .ps256): return true
        case (.p256, .es256), (.p384, .es384): return true
        default: return false
        }
    }

    /// Checks `signature` over `input` with `algorithm`; false for any mismatch or malformed signature.
    public func verify(_ signature: Data, over input: Data, algorithm: JOSEAlgorithm) -> Bool {
        guard fits(algorithm) else { return false }
        switch (material, algorithm) {
        case (.rsa(let key), _):
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            switch algorithm {
            case .rs256: return key.isValidSignature(parsed, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
            case .rs384: return key.isValidSignature(parsed, for: SHA384.hash(data: input), padding: .insecurePKCS1v1_5)
            case .rs512: return key.isValidSignature(parsed, for: SHA512.hash(data: input), padding: .insecurePKCS1v1_5)
            case .ps256: return key.isValidSignature(parsed, for: SHA256.hash(data: input), padding: .PSS)
            default: return false
            }
        case (.p256(let key), .es256):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA256.hash(data: input))
        case (.p384(let key), .es384):
            guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA384.hash(data: input))
        default:
            return false
        }
    }
}

extension JSONWebKey {
    /// The public JWK members (RFC 7517, RFC 7518 §6) as published in a JWKS.
    public var publicFields: [String: String] {
        var fields: [String: String] = ["use": "sig"]
        if let kid { fields["kid"] = kid }
        if let algorithm { fields["alg"] = algorithm }
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
        case .p384(let key):
            let raw = key.rawRepresentation
            fields["kty"] = "EC"
            fields["crv"] = "P-384"
            fields["x"] = Base64URL.encode(raw.prefix(48))
            fields["y"] = Base64URL.encode(raw.suffix(48))
        }
        return fields
    }
}

/// A parsed JWKS document: the usable signature keys it holds.
public struct JSONWebKeySet: Sendable {
    public let keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// Parses `{"keys": [...]}`, skipping keys that cannot verify signatures; nil when the document
    /// is not a JWKS at all.
    public init?(parsing data: Data) {
        guard case .object(let document)? = JSONValue(parsing: data), case .array(let entries)? = document["keys"] else { return nil }
        keys = entries.compactMap { entry in
            guard case .object(let fields) = entry else { return nil }
            return JSONWebKey(fields)
        }
    }

    /// Keys that may verify a token with `kid` and `algorithm`. Without a `kid`, every key that fits.
    public func candidates(kid: String?, algorithm: JOSEAlgorithm) -> [JSONWebKey] {
        keys.filter { key in
            guard key.fits(algorithm) else { return false }
            guard let kid else { return true }
            return key.kid == kid
        }
    }

    /// True when some key carries `kid`.
    public func contains(kid: String) -> Bool { keys.contains { $0.kid == kid } }
}
