/// Why ``CBORDecoder`` refused its input. Each case reads as a sentence for an
/// operator; none quotes the input bytes.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ended in the middle of an item.
    case truncated
    /// A string, array or map declares more content than the input has left.
    case lengthExceedsInput
    /// Arrays and maps nest deeper than the limit allows.
    case nestingTooDeep(limit: Int)
    /// The input holds more items than the limit allows.
    case tooManyItems(limit: Int)
    /// The input is larger than the decoder accepts at all.
    case inputTooLarge(limit: Int)
    /// A string, array or map uses indefinite-length encoding.
    case indefiniteLength
    /// The input contains a tag (major type 6).
    case tagNotSupported
    /// The input contains a floating-point number.
    case floatNotSupported
    /// A simple value other than false, true or null, or a reserved encoding.
    case unsupportedSimpleValue
    /// A header uses one of the reserved additional-information values 28 to 30.
    case reservedEncoding
    /// A text string is not valid UTF-8.
    case invalidUTF8
    /// A map repeats a key.
    case duplicateMapKey
    /// A map key is neither an integer nor a text string.
    case unsupportedMapKey
    /// Bytes follow the single item the input should consist of.
    case trailingBytes(count: Int)

    public var description: String {
        switch self {
        case .truncated:
            "The CBOR data ends before its last item is complete."
        case .lengthExceedsInput:
            "A CBOR string, array or map declares a length longer than the data that remains; the data is cut short or corrupt."
        case .nestingTooDeep(let limit):
            "CBOR arrays and maps are nested more than \(limit) levels deep."
        case .tooManyItems(let limit):
            "The CBOR data holds more than \(limit) items."
        case .inputTooLarge(let limit):
            "The CBOR data is larger than the \(limit) bytes accepted."
        case .indefiniteLength:
            "The CBOR data uses indefinite-length encoding, which is not accepted here."
        case .tagNotSupported:
            "The CBOR data contains a tag, which is not accepted here."
        case .floatNotSupported:
            "The CBOR data contains a floating-point number, which is not accepted here."
        case .unsupportedSimpleValue:
            "The CBOR data contains a simple value other than true, false or null."
        case .reservedEncoding:
            "The CBOR data uses a reserved header encoding."
        case .invalidUTF8:
            "A CBOR text string is not valid UTF-8."
        case .duplicateMapKey:
            "A CBOR map contains the same key twice."
        case .unsupportedMapKey:
            "A CBOR map key is neither an integer nor a text string."
        case .trailingBytes(let count):
            "\(count) unexpected byte(s) follow the CBOR item."
        }
    }
}
