import Foundation
import OneTimePassword
import Testing

@Suite("TOTP (RFC 6238), Base32 and otpauth URIs")
struct TOTPTests {
    /// RFC 6238 Appendix B, SHA-1 rows: the ASCII secret "12345678901234567890", 8 digits, 30 s.
    @Test("RFC 6238 test vectors (SHA-1)", arguments: [
        (59.0, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func rfcVectors(time: Double, expected: String) {
        let totp = TOTP(secret: Array("12345678901234567890".utf8), digits: 8)
        #expect(totp.code(at: Date(timeIntervalSince1970: time)) == expected)
    }

    @Test("six-digit codes are the last six digits of the same truncation (RFC 4226 Appendix D)")
    func sixDigits() {
        // RFC 4226 Appendix D: HOTP values of counters 0...9 for the same secret.
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        for (counter, code) in expected.enumerated() { #expect(totp.code(step: Int64(counter)) == code) }
    }

    @Test("a code matches its own step and one either side, nothing further; malformed input never matches")
    func window() {
        let totp = TOTP(secret: TOTP.randomSecret())
        let now = Date(timeIntervalSince1970: 1_800_000_015)
        let step = totp.step(at: now)
        #expect(totp.matchingStep(totp.code(step: step), at: now) == step)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now) == step - 1)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now) == step + 1)
        let far = [totp.code(step: step - 2), totp.code(step: step + 2)].filter { code in
            ![-1, 0, 1].contains { totp.code(step: step + Int64($0)) == code }
        }
        for code in far { #expect(totp.matchingStep(code, at: now) == nil) }
        for bad in ["", "12345", "1234567", "12a456", "１２３４５６", String(repeating: "9", count: 4096)] {
            #expect(totp.matchingStep(bad, at: now) == nil)
        }
    }

    @Test("Base32 round trip and RFC 4648 vectors")
    func base32() {
        let vectors = [("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"),
                       ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI")]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
            #expect(Base32.decode(encoded.lowercased() + "====") == Array(plain.utf8))
        }
        #expect(Base32.decode("MZXW1") == nil)
        let secret = TOTP.randomSecret()
        #expect(Base32.decode(Base32.encode(secret)) == secret)
        #expect(secret.count == 20)
    }

    @Test("the otpauth URI has the exact shape authenticator apps read")
    func uri() {
        let uri = OTPAuthURI.totp(issuer: "Acme Corp", account: "alice@example.org", secret: Array("12345678901234567890".utf8))
        #expect(uri == "otpauth://totp/Acme%20Corp:alice%40example.org?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
            + "&issuer=Acme%20Corp&algorithm=SHA1&digits=6&period=30")
    }
}
