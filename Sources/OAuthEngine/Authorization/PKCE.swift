import Crypto
import Foundation
import IdentityCore

/// Proof Key for Code Exchange (RFC 7636), S256 only.
public enum PKCE {
    /// 43–128 characters from the unreserved set (RFC 7636 §4.1–4.2).
    public static func isWellFormed(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count)
            && value.utf8.allSatisfy { byte in
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            }
    }

    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    public static func verify(verifier: String, challenge: String) -> Bool {
        isWellFormed(verifier) && Secrets.constantTimeEquals(Self.challenge(for: verifier), challenge)
    }
}
