import Foundation
import IdentityCore

/// JWS compact serialization (RFC 7515 §7.1): the one parser and signer every token path uses —
/// the broker's own access and ID tokens, software statements, upstream id_tokens. Verification is
/// ``JWTVerifier``'s, under a ``JWTPolicy``.
public enum CompactJWS {
    /// The three decoded parts of a compact JWS. Nothing here is verified yet.
    public struct Parts: Sendable {
        public var header: [String: JSONValue]
        public var payload: Data
        public var signingInput: Data
        public var signature: Data

        public var algorithm: String? { header["alg"]?.stringValue }
        public var keyId: String? { header["kid"]?.stringValue }
        public var type: String? { header["typ"]?.stringValue }

        /// The payload as a JSON object (claims), nil when it is not one.
        public var claims: [String: JSONValue]? {
            guard case .object(let claims)? = JSONValue(parsing: payload) else { return nil }
            return claims
        }
    }

    /// Signs `payload` (JSON bytes) with `key`, adding `alg`, `kid` and `typ` to the header.
    public static func sign(payload: Data, type: String, key: SigningKey) throws -> String {
        let header = #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.kid)","typ":"\#(type)"}"#
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(payload)
        let signature = try key.sign(Data(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// Splits and decodes a compact JWS; nil for anything malformed (wrong part count,
    /// bad base64url, a header that is not a JSON object, more than `maxLength` bytes).
    public static func decode(_ token: String, maxLength: Int = 16_384) -> Parts? {
        var token = token
        return token.withUTF8 { bytes -> Parts? in
            guard bytes.count <= maxLength else { return nil }
            var dots: [Int] = []
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
                dots.append(index)
                if dots.count > 2 { return nil }
            }
            guard dots.count == 2,
                  let headerData = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[..<dots[0]])),
                  let payload = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(dots[0] + 1)..<dots[1]])),
                  let signature = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(dots[1] + 1)...])),
                  case .object(let header)? = JSONValue(parsing: headerData) else { return nil }
            return Parts(header: header, payload: payload, signingInput: Data(bytes[..<dots[1]]), signature: signature)
        }
    }
}
