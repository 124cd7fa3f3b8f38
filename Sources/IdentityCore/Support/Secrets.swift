import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random values and one-way hashes for bearer secrets (codes, refresh tokens, temp-login ids).
///
/// docs/protocol.md, "Tokens": such values are random with at least 128 bits and stored only as
/// hashes.
public enum Secrets {
    /// A random URL-safe string carrying `bytes` bytes of entropy (default 256 bits).
    public static func randomToken(bytes: Int = 32) -> String {
        Base64URL.encode(randomBytes(bytes))
    }

    /// Random bytes from the system generator, in one call: `UInt8.random(using:)` with
    /// `SystemRandomNumberGenerator` made one `getrandom(2)` per byte — 72 system calls for the
    /// three identifiers of a code exchange. `arc4random_buf` is the
    /// kernel's CSPRNG through a single `getrandom` on glibc 2.36+, and the system's CSPRNG on Darwin.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            arc4random_buf(buffer.baseAddress!, count)
            initialized = count
        }
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
