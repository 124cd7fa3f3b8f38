import Foundation
import IdentityCore

/// Decodes request parameters into ordered pairs: `application/x-www-form-urlencoded` bodies and
/// query strings, and flat JSON objects. Kept apart from HTTP so the parsers can be unit-tested and
/// fuzzed (Sources/FuzzEntries) without a server; `OAuthParameters(pairs:)` applies the OAuth rules.
public enum ParameterDecoding {
    /// `application/x-www-form-urlencoded` (also query strings). Bad percent-encoding is an error.
    /// Decoded on bytes: query strings carry 1 KB tokens on the validation hot path.
    public static func form(_ text: String) throws -> [(String, String)] {
        var text = text
        return try text.withUTF8 { bytes in
            var pairs: [(String, String)] = []
            var start = 0
            while start <= bytes.count {
                let end = offset(of: UInt8(ascii: "&"), in: UnsafeBufferPointer(rebasing: bytes[start...])).map { start + $0 } ?? bytes.count
                if end > start {
                    let pair = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    let equals = offset(of: UInt8(ascii: "="), in: pair) ?? pair.count
                    let name = try decodeComponent(UnsafeBufferPointer(rebasing: pair[0..<equals]))
                    let value = equals < pair.count ? try decodeComponent(UnsafeBufferPointer(rebasing: pair[(equals + 1)...])) : ""
                    pairs.append((name, value))
                }
                start = end + 1
            }
            return pairs
        }
    }

    private static func decodeComponent(_ bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        guard offset(of: UInt8(ascii: "%"), in: bytes) != nil || offset(of: UInt8(ascii: "+"), in: bytes) != nil else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) else {
                    throw OAuthError.invalidRequest("The request has malformed percent-encoding.")
                }
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw OAuthError.invalidRequest("The request has malformed percent-encoding.")
        }
        return text
    }

    /// Where `byte` first occurs in `bytes`, found with `memchr`: the form's scans run over a
    /// 1 KB token on every introspection, faster than comparing byte by byte in Swift.
    private static func offset(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty,
              let found = memchr(base, Int32(byte), bytes.count) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// A flat JSON object; numbers and booleans become strings, nested values are refused.
    public static func json(_ data: Data) throws -> [(String, String)] {
        guard case .object(let object)? = JSONValue(parsing: data) else {
            throw OAuthError.invalidRequest("The request body is not a JSON object.")
        }
        return try object.map { name, value in
            switch value {
            case .string(let text): return (name, text)
            case .int(let number): return (name, String(number))
            case .double(let number): return (name, String(number))
            case .bool(let flag): return (name, flag ? "true" : "false")
            case .null: return (name, "")
            case .array, .object:
                throw OAuthError.invalidRequest("The parameter '\(name.prefix(64))' must be a string.")
            }
        }
    }
}
