import Foundation
import IdentityCore
import Testing

/// `Secrets.randomBytes` / `randomToken`: the whole buffer from the system CSPRNG in one call.
@Suite("Secrets: random bytes and tokens")
struct SecretsRandomTests {
    @Test("the asked length, never twice the same, every byte value appears")
    func randomBytes() {
        #expect(Secrets.randomBytes(0).isEmpty)
        for count in [1, 16, 24, 32, 33, 1_000] { #expect(Secrets.randomBytes(count).count == count) }
        #expect(Secrets.randomBytes(32) != Secrets.randomBytes(32))
        let many = Secrets.randomBytes(20_000)
        #expect(Set(many).count == 256)
        // Roughly uniform: no value is more than three times as frequent as the mean (78).
        var counts = [Int](repeating: 0, count: 256)
        for byte in many { counts[Int(byte)] += 1 }
        #expect(counts.max()! < 3 * 20_000 / 256)
    }

    @Test("tokens are URL-safe base64 of the asked entropy, and distinct")
    func tokens() {
        let tokens = (0..<1_000).map { _ in Secrets.randomToken() }
        #expect(Set(tokens).count == tokens.count)
        #expect(tokens.allSatisfy { $0.count == 43 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
        #expect(Secrets.randomToken(bytes: 16).count == 22)
    }
}
