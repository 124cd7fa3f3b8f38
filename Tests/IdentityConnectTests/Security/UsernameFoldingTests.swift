import Foundation
@testable import OAuthEngine
import Testing

/// The login throttle's username spelling (docs/security.md, rule 6): ASCII takes a byte path,
/// which must give exactly what Foundation's trim, NFC and case folding give, or two spellings of
/// one username would get two counters.
@Suite("Throttle: username folding")
struct UsernameFoldingTests {
    static func foundation(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
    }

    @Test("every ASCII character alone, around and inside a name folds as Foundation folds it")
    func asciiLikeFoundation() {
        for byte in UInt8(0)..<0x80 {
            let character = String(decoding: [byte], as: UTF8.self)
            for sample in [character, character + "Alice", "Alice" + character, character + "Bob" + character, "Al" + character + "ICE",
                           character + character + "x" + character + character] {
                #expect(LoginThrottle.folded(sample) == Self.foundation(sample), "\(Array(sample.utf8))")
            }
        }
    }

    @Test("other text, empty and all white space fold as Foundation folds them")
    func othersLikeFoundation() {
        for sample in ["", " ", " \t\r\n ", "ALICE@EXAMPLE.ORG", " DOMAIN\\User ", "Ålice", "A\u{30A}lice", "straße", "İstanbul",
                       "\u{85}bob\u{85}", "\u{A0}carol", "DŽ", "ǅemal", String(repeating: "Z", count: 256)] {
            #expect(LoginThrottle.folded(sample) == Self.foundation(sample), "\(sample.unicodeScalars.map(\.value))")
        }
    }

    @Test("spellings of one name share one key")
    func oneKey() {
        let keys = ["alice", " Alice ", "ALICE\t", "\u{0B}aLiCe\u{0C}"].map { LoginThrottle.keys(namespace: "n", username: $0, address: nil).username }
        #expect(Set(keys).count == 1)
    }
}
