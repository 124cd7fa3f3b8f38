import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) with the parameters authenticator apps assume:
/// HMAC-SHA-1, 6 digits, 30-second steps, counted from the Unix epoch.
///
/// The broker's own implementation rather than `HummingbirdOTP`: that module depends on
/// Hummingbird (which nothing below the app target may import) and takes the secret as a
/// `String`, while secrets here are 20 random bytes (RFC 4226 §4 recommends 160 bits).
public struct TOTP: Sendable {
    /// The shared secret (the key of the HMAC).
    public let secret: [UInt8]
    /// Digits of a code.
    public let digits: Int
    /// Seconds per time step.
    public let period: Int

    /// The standard parameters: 6 digits, 30 s.
    public init(secret: [UInt8], digits: Int = 6, period: Int = 30) {
        precondition((6...8).contains(digits) && period > 0, "TOTP needs 6-8 digits and a positive period")
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// A new random secret of `byteCount` bytes (20 by default, 160 bits).
    public static func randomSecret(byteCount: Int = 20) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The time step `date` falls in (RFC 6238 §4.2: T = floor((now - T0) / X)).
    public func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code of time step `step` (the HOTP value of RFC 4226 §5.3 for counter `step`),
    /// zero-padded to `digits`.
    public func code(step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The code valid at `date`.
    public func code(at date: Date) -> String { code(step: step(at: date)) }

    /// The time step whose code is `candidate`, looking at the step of `date` and `window` steps
    /// either side (nearest first); nil when none matches. The caller refuses a step it has
    /// accepted before (replay). Comparison is in constant time per step.
    public func matchingStep(_ candidate: String, at date: Date, window: Int = 1) -> Int64? {
        guard candidate.utf8.count == digits, candidate.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let current = step(at: date)
        var offsets = [0]
        for distance in stride(from: 1, through: max(0, window), by: 1) { offsets += [-distance, distance] }
        var found: Int64?
        for offset in offsets {
            let step = current + Int64(offset)
            if Self.constantTimeEquals(code(step: step), candidate), found == nil { found = step }
        }
        return found
    }

    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8), b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
