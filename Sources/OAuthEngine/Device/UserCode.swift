import Foundation
import IdentityCore

/// The code a person types on the device page (RFC 8628 §6.1): eight letters from twenty
/// consonants that cannot be mistaken for one another or spell words, shown as `BCDF-GHJK`. Typed
/// in any case, with or without the dash and spaces. 20⁸ ≈ 2.6 × 10¹⁰ codes against a guesser held
/// to `server.rateLimits.userCodesPerMinute` tries a minute per address.
enum UserCode {
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let length = 8

    /// A new code, each letter drawn uniformly.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// `BCDFGHJK` as people read it: `BCDF-GHJK`.
    static func display(_ code: String) -> String {
        guard code.count == length else { return code }
        return String(code.prefix(length / 2)) + "-" + String(code.suffix(length / 2))
    }

    /// What a person typed, as the code it stands for; nil when it cannot be one.
    static func normalized(_ typed: String?) -> String? {
        guard let typed, typed.utf8.count <= 64 else { return nil }
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == length, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }

    /// What is stored of a code.
    static func hash(_ code: String) -> String { Secrets.hash("user-code\u{0}" + code) }
}
