import QRCode

/// Deterministic test payloads of an exact UTF-8 length.
enum Payloads {
    /// The two URL shapes the QR-login feature puts in codes.
    static let totpURI =
        "otpauth://totp/Acme:alice%40example.org?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Acme&algorithm=SHA1&digits=6&period=30"
    static let loginURL = "https://login.example.com/qr?code=b0671081-cb73-4839-8bc1-8cf020457228"

    /// `count` bytes of printable ASCII (both cases, digits, punctuation), the same for each seed.
    static func ascii(count: Int, seed: UInt64) -> String {
        var generator = SplitMix64(seed: seed)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 !#$%&()*+,-./:;<=>?@[]^_{|}~")
        return String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// Exactly `count` UTF-8 bytes mixing 2-, 3- and 4-byte characters (Cyrillic, CJK, emoji) with ASCII.
    static func multiByte(count: Int, seed: UInt64) -> String {
        var generator = SplitMix64(seed: seed)
        let pieces = ["Привет", "ключ", "日本語", "二维码", "😀", "🔐", "é", "ü", "ß", "a", "Z", "7", "-"]
        var text = ""
        var bytes = 0
        while bytes < count {
            let piece = pieces[Int(generator.next() % UInt64(pieces.count))]
            let size = piece.utf8.count
            if bytes + size <= count {
                text += piece
                bytes += size
            } else {
                text += String(repeating: "x", count: count - bytes)
                bytes = count
            }
        }
        return text
    }
}

/// A small, seedable generator so payloads are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
