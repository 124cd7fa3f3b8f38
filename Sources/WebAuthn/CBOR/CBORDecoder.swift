/// A bounded CBOR decoder for the RFC 8949 subset that WebAuthn uses.
///
/// It reads data sent by clients over the internet, so it trusts nothing it is given:
/// nesting depth, the number of items and the input size are capped, and every
/// declared length is checked against the bytes that remain *before* anything is
/// allocated, so a header claiming 2^63 bytes fails at once. Indefinite lengths,
/// tags, floating-point numbers, simple values other than false/true/null, duplicate
/// map keys and map keys other than integers and text strings are refused.
/// Integers need not use their shortest encoding.
public struct CBORDecoder: Sendable {
    /// Caps that bound the work and memory one input can cost.
    public struct Limits: Sendable, Equatable {
        /// How many arrays and maps may enclose one another.
        public var maxDepth: Int
        /// How many items (every integer, string, array, map and simple value) one
        /// input may hold.
        public var maxItems: Int
        /// The largest input accepted, in bytes.
        public var maxInputBytes: Int

        public init(maxDepth: Int, maxItems: Int, maxInputBytes: Int) {
            self.maxDepth = maxDepth
            self.maxItems = maxItems
            self.maxInputBytes = maxInputBytes
        }

        /// Room for any attestation object, COSE key or extension map a real
        /// authenticator sends (an attestation certificate chain included).
        public static let webAuthn = Limits(maxDepth: 8, maxItems: 1024, maxInputBytes: 64 * 1024)
    }

    public let limits: Limits

    public init(limits: Limits = .webAuthn) {
        self.limits = limits
    }

    /// Decodes an input that must consist of exactly one item.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        let (value, length) = try decodePrefix(bytes[...])
        guard length == bytes.count else { throw .trailingBytes(count: bytes.count - length) }
        return value
    }

    /// Decodes the one item at the start of `bytes` and reports how many bytes it
    /// used; whatever follows is left alone. Authenticator data needs this: the
    /// credential public key sits in the middle of it with no length prefix.
    public func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (value: CBORValue, length: Int) {
        guard bytes.count <= limits.maxInputBytes else { throw .inputTooLarge(limit: limits.maxInputBytes) }
        var reader = Reader(bytes: bytes, limits: limits)
        let value = try reader.item(depth: 0)
        return (value, reader.position - bytes.startIndex)
    }
}

/// The decoding state for one input: a cursor and the item budget left.
private struct Reader {
    let bytes: ArraySlice<UInt8>
    let limits: CBORDecoder.Limits
    var position: Int
    var itemsLeft: Int

    init(bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits) {
        self.bytes = bytes
        self.limits = limits
        self.position = bytes.startIndex
        self.itemsLeft = limits.maxItems
    }

    private var remaining: Int { bytes.endIndex - position }

    mutating func item(depth: Int) throws(CBORError) -> CBORValue {
        guard itemsLeft > 0 else { throw .tooManyItems(limit: limits.maxItems) }
        itemsLeft -= 1
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        switch major {
        case 6:
            throw .tagNotSupported
        case 7:
            return try simple(info)
        default:
            break
        }
        if info == 31 {
            if major >= 2 { throw .indefiniteLength }
            throw .reservedEncoding
        }
        let argument = try argument(info)
        switch major {
        case 0:
            return .unsigned(argument)
        case 1:
            return .negative(argument)
        case 2:
            return .bytes(try take(argument))
        case 3:
            let raw = try take(argument)
            // `String(decoding:)` repairs bad UTF-8; a repaired string no longer
            // matches its input, which is how invalid input is caught.
            let text = String(decoding: raw, as: UTF8.self)
            guard text.utf8.elementsEqual(raw) else { throw .invalidUTF8 }
            return .text(text)
        case 4:
            return try array(count: argument, depth: depth)
        default:
            return try map(count: argument, depth: depth)
        }
    }

    private mutating func simple(_ info: UInt8) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 25, 26, 27: throw .floatNotSupported
        case 28, 29, 30: throw .reservedEncoding
        default: throw .unsupportedSimpleValue
        }
    }

    private mutating func array(count: UInt64, depth: Int) throws(CBORError) -> CBORValue {
        guard depth < limits.maxDepth else { throw .nestingTooDeep(limit: limits.maxDepth) }
        // Every item takes at least one byte: a count above what remains is a lie.
        guard count <= UInt64(remaining) else { throw .lengthExceedsInput }
        guard count <= UInt64(itemsLeft) else { throw .tooManyItems(limit: limits.maxItems) }
        var elements: [CBORValue] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
        return .array(elements)
    }

    private mutating func map(count: UInt64, depth: Int) throws(CBORError) -> CBORValue {
        guard depth < limits.maxDepth else { throw .nestingTooDeep(limit: limits.maxDepth) }
        // Each entry is a key and a value of at least one byte each.
        guard count <= UInt64(remaining / 2) else { throw .lengthExceedsInput }
        guard count <= UInt64(itemsLeft / 2) else { throw .tooManyItems(limit: limits.maxItems) }
        var entries: [CBORValue: CBORValue] = [:]
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let key = try item(depth: depth + 1)
            switch key {
            case .unsigned, .negative, .text: break
            default: throw .unsupportedMapKey
            }
            let value = try item(depth: depth + 1)
            guard entries.updateValue(value, forKey: key) == nil else { throw .duplicateMapKey }
        }
        return .map(entries)
    }

    private mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return try bigEndian(byteCount: 1)
        case 25: return try bigEndian(byteCount: 2)
        case 26: return try bigEndian(byteCount: 4)
        case 27: return try bigEndian(byteCount: 8)
        default: throw .reservedEncoding
        }
    }

    private mutating func bigEndian(byteCount: Int) throws(CBORError) -> UInt64 {
        guard remaining >= byteCount else { throw .truncated }
        var value: UInt64 = 0
        for _ in 0..<byteCount { value = value << 8 | UInt64(bytes[position]); position += 1 }
        return value
    }

    private mutating func byte() throws(CBORError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    /// Takes `count` bytes, checking the declared length against what remains
    /// before converting it to `Int` or allocating.
    private mutating func take(_ count: UInt64) throws(CBORError) -> [UInt8] {
        guard count <= UInt64(remaining) else { throw .lengthExceedsInput }
        let end = position + Int(count)
        defer { position = end }
        return Array(bytes[position..<end])
    }
}
