import Crypto
import Foundation

/// Random values and one-way hashes for bearer secrets (codes, refresh tokens, temp-login ids).
///
/// docs/protocol.md, "Tokens": such values are random with at least 128 bits and stored only as
/// hashes.
public enum Secrets {
    /// A random URL-safe string carrying `bytes` bytes of entropy (default 256 bits).
    public static func randomToken(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let raw = (0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(raw)
    }

    /// Random bytes from the system generator.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The hash under which a bearer secret is stored: SHA-256, base64url.
    /// Bearer secrets have full entropy, so an unsalted fast hash is the right tool.
    public static func hash(_ secret: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(secret.utf8))))
    }

    /// Compares two strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8), b = Array(rhs.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        let count = max(a.count, b.count)
        for index in 0..<count {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
