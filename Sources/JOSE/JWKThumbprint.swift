import Crypto
import Foundation
import IdentityCore

/// JWK SHA-256 thumbprints (RFC 7638): the stable name of a public key — DPoP binds tokens to it
/// (`cnf.jkt`, `dpop_jkt`, RFC 9449).
public enum JWKThumbprint {
    /// The base64url SHA-256 of the key's required members in lexicographic order (RFC 7638 §3.2),
    /// as the key presented them: `{"e","kty","n"}` for RSA, `{"crv","kty","x","y"}` for EC.
    /// Nil when a required member is missing or not a string.
    public static func sha256(of fields: [String: JSONValue]) -> String? {
        let members: [String]
        switch fields["kty"]?.stringValue {
        case "RSA": members = ["e", "kty", "n"]
        case "EC": members = ["crv", "kty", "x", "y"]
        default: return nil
        }
        var object: [String: JSONValue] = [:]
        for name in members {
            guard let value = fields[name]?.stringValue else { return nil }
            object[name] = .string(value)
        }
        // JSONValue's writer sorts members and adds no whitespace: exactly RFC 7638's form for
        // these base64url and ASCII values.
        return Base64URL.encode(Data(SHA256.hash(data: JSONValue.serialize(object: object))))
    }

    /// True when `value` can be a SHA-256 thumbprint at all: 43 base64url characters.
    public static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 43 && value.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

extension JSONWebKey: JWSKeySource {
    /// A single key (a DPoP proof's own `jwk`) verifies whatever fits it, whatever the `kid`.
    public func candidates(kid: String?, algorithm: JOSEAlgorithm) -> [JSONWebKey] {
        fits(algorithm) ? [self] : []
    }
}
