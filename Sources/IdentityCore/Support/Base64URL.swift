import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE and PKCE use it; and the padded standard
/// alphabet of HTTP Basic credentials, which every introspection and token call decodes.
///
/// Works on UTF-8 bytes with lookup tables: token validation decodes every access token, so
/// this sits on the hottest path of the broker.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    public static func encode<D: DataProtocol>(_ data: D) -> String {
        let bytes = Array(data)
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

    /// Decodes unpadded base64url; nil for any character outside the alphabet (padding included)
    /// or an impossible length.
    public static func decode(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { decode(bytes: $0) }
    }

    public static func decode(bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        guard let output = decodeToArray(bytes: bytes) else { return nil }
        return Data(output)
    }

    /// Decodes into a byte array written through one unsafe buffer: appending to `Data` byte
    /// by byte cost more than the JWT signature check on the validate path.
    public static func decodeToArray(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        decodeUnpadded(bytes, table: table, canonical: true)
    }

    /// Decodes padded standard base64 (RFC 4648 §4, the alphabet with `+` and `/`), as HTTP Basic
    /// credentials carry it: the length a multiple of four, at most two `=` and only at the end.
    /// Like Foundation's `Data(base64Encoded:)`, bits left over in the last character are ignored.
    public static func decodeStandardPadded(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count % 4 == 0 else { return nil }
        var end = bytes.count
        while end > 0, bytes.count - end < 2, bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
        return decodeUnpadded(UnsafeBufferPointer(rebasing: bytes[..<end]), table: standardTable, canonical: false)
    }

    private static let standardTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    private static func decodeUnpadded(_ bytes: UnsafeBufferPointer<UInt8>, table: [UInt8], canonical: Bool) -> [UInt8]? {
        let count = bytes.count
        if count % 4 == 1 { return nil }
        let outputCount = count / 4 * 3 + max(0, count % 4 - 1)
        var valid = true
        var leftover: UInt32 = 0
        var leftoverBits = 0
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            var accumulator: UInt32 = 0
            var bits = 0
            var written = 0
            table.withUnsafeBufferPointer { table in
                for byte in bytes {
                    let value = table[Int(byte)]
                    if value == 0xFF { valid = false; return }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        buffer[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                        written += 1
                    }
                }
            }
            initialized = valid ? written : 0
            leftover = accumulator
            leftoverBits = bits
        }
        guard valid else { return nil }
        // Leftover bits must be zero (canonical encoding).
        if canonical, leftoverBits > 0 && leftover & ((1 << UInt32(leftoverBits)) - 1) != 0 { return nil }
        return output
    }
}
