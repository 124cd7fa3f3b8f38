/// Base64url (RFC 4648 §5), the encoding WebAuthn uses for binary values in JSON:
/// the challenge inside `clientDataJSON`, and every binary field the browser script
/// exchanges with the server.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes without padding, as WebAuthn and the browser script expect.
    static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(value >> 18 & 63)])
            output.append(alphabet[Int(value >> 12 & 63)])
            output.append(alphabet[Int(value >> 6 & 63)])
            output.append(alphabet[Int(value & 63)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            let value = UInt32(bytes[index]) << 16 | (remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(value >> 18 & 63)])
            output.append(alphabet[Int(value >> 12 & 63)])
            if remaining == 2 { output.append(alphabet[Int(value >> 6 & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url. Trailing `=` padding is tolerated (some clients add it);
    /// any other character outside the alphabet, an impossible length, or non-zero
    /// leftover bits give nil.
    static func decode(_ text: String) -> [UInt8]? {
        var input = Array(text.utf8)
        while input.last == UInt8(ascii: "=") { input.removeLast() }
        if input.count % 4 == 1 { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = table[Int(byte)]
            if value == 0xFF { return nil }
            accumulator = (accumulator << 6 | UInt32(value)) & 0xFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        if bits > 0 && accumulator & ((1 << UInt32(bits)) - 1) != 0 { return nil }
        return output
    }
}
