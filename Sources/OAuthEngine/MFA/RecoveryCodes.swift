import Foundation
import IdentityCore

/// Recovery codes (docs/mfa.md): ten per user, shown once, stored as hashes, each usable once,
/// accepted wherever an authenticator-app code is.
///
/// A code is 16 characters from a 32-letter alphabet without look-alikes (80 bits), shown as four
/// groups of four. With that much entropy a salted SHA-256 is enough: a database dump gives an
/// attacker nothing to guess from.
enum RecoveryCodes {
    static let count = 10
    static let length = 16
    static let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789".utf8)

    /// Ten fresh codes, formatted `xxxx-xxxx-xxxx-xxxx`.
    static func generate() -> [String] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in
            let characters = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            return stride(from: 0, to: length, by: 4).map { String(decoding: characters[$0..<$0 + 4], as: UTF8.self) }
                .joined(separator: "-")
        }
    }

    /// The code as typed, without spaces and dashes, lower-cased; nil when it cannot be one.
    static func normalize(_ input: String) -> String? {
        let bytes = input.utf8.filter { $0 != 0x20 && $0 != 0x2D }.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        guard bytes.count == length, bytes.allSatisfy(alphabet.contains) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The stored hash of a normalized code, salted with the user's subject.
    static func hash(_ normalized: String, subject: String) -> String {
        Secrets.hash("recovery\u{0}\(subject)\u{0}\(normalized)")
    }

    static func hashes(_ codes: [String], subject: String) -> [String] {
        codes.compactMap(normalize).map { hash($0, subject: subject) }
    }
}
