import WebAuthn

/// A minimal CBOR encoder for building test inputs (map keys in insertion order).
enum CBORWriter {
    static func encode(_ value: CBORValue) -> [UInt8] {
        switch value {
        case .unsigned(let n): return header(0, n)
        case .negative(let n): return header(1, n)
        case .bytes(let b): return header(2, UInt64(b.count)) + b
        case .text(let t): return header(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let a): return header(4, UInt64(a.count)) + a.flatMap(encode)
        case .map(let m): return encodeMap(m.map { ($0.key, $0.value) })
        case .bool(let b): return [b ? 0xF5 : 0xF4]
        case .null: return [0xF6]
        }
    }

    static func encodeMap(_ entries: [(CBORValue, CBORValue)]) -> [UInt8] {
        header(5, UInt64(entries.count)) + entries.flatMap { encode($0.0) + encode($0.1) }
    }

    static func header(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let m = major << 5
        switch argument {
        case 0..<24: return [m | UInt8(argument)]
        case 24..<256: return [m | 24, UInt8(argument)]
        case 256..<65536: return [m | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 65536..<(1 << 32): return [m | 26] + (0..<4).reversed().map { UInt8(argument >> ($0 * 8) & 0xFF) }
        default: return [m | 27] + (0..<8).reversed().map { UInt8(argument >> ($0 * 8) & 0xFF) }
        }
    }
}
