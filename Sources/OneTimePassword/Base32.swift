/// Base32 (RFC 4648 §6), the encoding authenticator apps read secrets in: upper-case letters
/// and digits 2–7, written here without padding (as `otpauth://` URIs carry it).
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes upper- or lower-case Base32; spaces and `=` padding are ignored (people copy
    /// secrets in groups). Nil for any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for scalar in text.utf8 {
            if scalar == 0x20 || scalar == 0x3D { continue }
            let upper = (0x61...0x7A).contains(scalar) ? scalar - 0x20 : scalar
            guard let value = alphabet.firstIndex(of: upper) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        return output
    }
}
