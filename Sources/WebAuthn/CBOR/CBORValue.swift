/// A decoded CBOR data item (RFC 8949), limited to the kinds WebAuthn uses:
/// integers, byte and text strings, arrays, maps, booleans and null.
///
/// Decoded by ``CBORDecoder``, which refuses everything else (tags, floats,
/// indefinite lengths), so code reading WebAuthn structures only has these cases to
/// consider.
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the negative integer `-1 - n`, stored as `n` so the whole
    /// CBOR range (down to -2^64) fits.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map. Keys are integers or text strings and never repeat.
    case map([CBORValue: CBORValue])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// The integer value when it fits in `Int` (as every WebAuthn and COSE label and
    /// algorithm number does), otherwise nil.
    public var intValue: Int? {
        switch self {
        case .unsigned(let value):
            return value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value):
            return value <= UInt64(Int.max) ? -1 - Int(value) : nil
        default:
            return nil
        }
    }

    /// The bytes of a byte string, otherwise nil.
    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// The text of a text string, otherwise nil.
    public var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The entries of a map, otherwise nil.
    public var mapValue: [CBORValue: CBORValue]? {
        if case .map(let map) = self { return map }
        return nil
    }

    /// Builds an integer item: `.unsigned` for zero and up, `.negative` below zero.
    public static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}
