import Foundation

extension JSONValue {
    /// Compact JSON with sorted object keys, written straight into bytes.
    ///
    /// The validate and introspect answers are built from `JSONValue`, and writing them directly
    /// spares every such request `JSONEncoder`. Non-finite numbers become `null`.
    public var serialized: [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(256)
        write(into: &output)
        return output
    }

    /// Serializes an object without wrapping it in `.object` first.
    public static func serialize(object: [String: JSONValue]) -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(256)
        writeObject(object, into: &output)
        return output
    }

    func write(into output: inout [UInt8]) {
        switch self {
        case .string(let text): Self.writeString(text, into: &output)
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number): Self.writeDouble(number, into: &output)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: output.append(contentsOf: "null".utf8)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object): Self.writeObject(object, into: &output)
        }
    }

    static func writeObject(_ object: [String: JSONValue], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        for (index, member) in object.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            member.value.write(into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    static func writeDouble(_ number: Double, into output: inout [UInt8]) {
        guard number.isFinite else { output.append(contentsOf: "null".utf8); return }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            output.append(contentsOf: String(Int64(number)).utf8)
        } else {
            output.append(contentsOf: String(number).utf8)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ text: String, into output: inout [UInt8]) {
        // On the contiguous UTF-8 bytes (native strings have them): scanning through the generic
        // `contains(where:)` iterator was half of this function's time in an introspection answer.
        if text.utf8.withContiguousStorageIfAvailable({ writeString(bytes: $0, into: &output) }) == nil {
            Array(text.utf8).withUnsafeBufferPointer { writeString(bytes: $0, into: &output) }
        }
    }

    private static func writeString(bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (ids, tokens, URLs) need no escape: copied whole.
        if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            output.append(contentsOf: bytes)
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
