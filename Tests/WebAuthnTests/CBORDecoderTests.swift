import Testing
import WebAuthn

@Suite("CBOR decoder")
struct CBORDecoderTests {
    let decoder = CBORDecoder()

    private func expectError(_ expected: CBORError, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: expected, sourceLocation: sourceLocation) { try decoder.decode(bytes) }
    }

    @Test("decodes the kinds WebAuthn uses")
    func validItems() throws {
        #expect(try decoder.decode([0x00]) == .unsigned(0))
        #expect(try decoder.decode([0x18, 0xFF]) == .unsigned(255))
        #expect(try decoder.decode([0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .unsigned(.max))
        #expect(try decoder.decode([0x26]) == .int(-7))
        #expect(try decoder.decode([0x39, 0x01, 0x00]) == .int(-257))
        #expect(try decoder.decode([0x26]).intValue == -7)
        #expect(try decoder.decode([0x3B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]).intValue == nil)
        #expect(try decoder.decode([0x43, 1, 2, 3]) == .bytes([1, 2, 3]))
        #expect(try decoder.decode([0x64, 0x6E, 0x6F, 0x6E, 0x65]) == .text("none"))
        #expect(try decoder.decode([0x82, 0xF4, 0xF5]) == .array([.bool(false), .bool(true)]))
        #expect(try decoder.decode([0xF6]) == .null)
        #expect(try decoder.decode([0xA2, 0x01, 0x02, 0x61, 0x61, 0x80]) == .map([.int(1): .int(2), .text("a"): .array([])]))
    }

    @Test("decodePrefix reports the bytes one item used and leaves the rest")
    func prefix() throws {
        let bytes: [UInt8] = [0xFF, 0xA1, 0x01, 0x02, 0xAB, 0xCD]
        let (value, length) = try decoder.decodePrefix(bytes[1...])
        #expect(value == .map([.int(1): .int(2)]))
        #expect(length == 3)
    }

    @Test("refuses trailing bytes where one item is expected")
    func trailing() { expectError(.trailingBytes(count: 2), [0x01, 0x02, 0x03]) }

    @Test("refuses nesting deeper than the limit")
    func deepNesting() {
        expectError(.nestingTooDeep(limit: 8), Array(repeating: 0x81, count: 9) + [0x00])
        expectError(.nestingTooDeep(limit: 8), Array(repeating: 0x81, count: 60_000) + [0x00])
        expectError(.nestingTooDeep(limit: 8), Array(repeating: [0xA1, 0x00], count: 20).flatMap { $0 } + [0x00])
        #expect(throws: Never.self) { try decoder.decode(Array(repeating: 0x81, count: 8) + [0x00]) }
    }

    @Test("huge declared lengths fail at once, before allocating")
    func hugeLengths() {
        let huge: [UInt8] = [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]  // 2^63 - 1
        expectError(.lengthExceedsInput, [0x5B, 0x80, 0, 0, 0, 0, 0, 0, 0])  // bytes, 2^63
        expectError(.lengthExceedsInput, [0x7B] + huge)                     // text
        expectError(.lengthExceedsInput, [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])  // array, 2^64 - 1
        expectError(.lengthExceedsInput, [0xBB] + huge)                     // map
        expectError(.lengthExceedsInput, [0x5A, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3])
        expectError(.lengthExceedsInput, [0xA2, 0x01, 0x02])                 // map of 2, room for 1
    }

    @Test("caps items and input size")
    func itemAndSizeLimits() {
        let limits = CBORDecoder.Limits(maxDepth: 8, maxItems: 10, maxInputBytes: 64)
        let small = CBORDecoder(limits: limits)
        #expect(throws: CBORError.tooManyItems(limit: 10)) { try small.decode([0x8A] + Array(repeating: 0x00, count: 10)) }
        #expect(throws: CBORError.inputTooLarge(limit: 64)) { try small.decode([0x58, 0x40] + Array(repeating: 0, count: 64)) }
        let manyInNested = [0x82, 0x88] + Array(repeating: UInt8(0), count: 8) + [0x00]
        #expect(throws: CBORError.tooManyItems(limit: 10)) { try small.decode(manyInNested) }
    }

    @Test("reports truncated input clearly")
    func truncated() {
        expectError(.truncated, [])
        expectError(.truncated, [0x19, 0x01])        // 2-byte argument, 1 present
        expectError(.truncated, [0x1B, 0, 0, 0])     // 8-byte argument, 3 present
        expectError(.lengthExceedsInput, [0x45, 1, 2])  // 5-byte string, 2 present
        expectError(.lengthExceedsInput, [0x82, 0x01])  // array of 2, room for 1
        expectError(.lengthExceedsInput, [0xA1, 0x01])  // map entry without value
        expectError(.truncated, [0x82, 0x01, 0x19])     // second item's argument cut
        expectError(.truncated, [0xA1, 0x01, 0x18])           // map value argument cut
        #expect(CBORError.truncated.description.contains("ends before"))
    }

    @Test("refuses duplicate and non-scalar map keys")
    func mapKeys() {
        expectError(.duplicateMapKey, [0xA2, 0x01, 0x00, 0x01, 0x00])
        expectError(.duplicateMapKey, [0xA2, 0x01, 0x00, 0x18, 0x01, 0x00])  // same value, longer encoding
        expectError(.duplicateMapKey, [0xA2, 0x61, 0x61, 0x00, 0x61, 0x61, 0x01])
        expectError(.unsupportedMapKey, [0xA1, 0x41, 0x00, 0x00])
        expectError(.unsupportedMapKey, [0xA1, 0x80, 0x00])
    }

    @Test("refuses indefinite lengths, tags, floats and other simple values")
    func unsupportedEncodings() {
        expectError(.indefiniteLength, [0x5F, 0x41, 0x00, 0xFF])
        expectError(.indefiniteLength, [0x7F, 0xFF])
        expectError(.indefiniteLength, [0x9F, 0xFF])
        expectError(.indefiniteLength, [0xBF, 0xFF])
        expectError(.reservedEncoding, [0x1F])
        expectError(.reservedEncoding, [0x1C])
        expectError(.tagNotSupported, [0xC0, 0x60])
        expectError(.floatNotSupported, [0xF9, 0x3C, 0x00])
        expectError(.floatNotSupported, [0xFB, 0, 0, 0, 0, 0, 0, 0, 0])
        expectError(.unsupportedSimpleValue, [0xF7])  // undefined
        expectError(.unsupportedSimpleValue, [0xF8, 0x20])
        expectError(.unsupportedSimpleValue, [0xFF])  // lone break
        expectError(.invalidUTF8, [0x62, 0xC3, 0x28])
    }

    @Test("error descriptions are sentences without input bytes")
    func descriptions() {
        let errors: [CBORError] = [.truncated, .lengthExceedsInput, .nestingTooDeep(limit: 8), .tooManyItems(limit: 1),
                                   .inputTooLarge(limit: 2), .indefiniteLength, .tagNotSupported, .floatNotSupported,
                                   .unsupportedSimpleValue, .reservedEncoding, .invalidUTF8, .duplicateMapKey,
                                   .unsupportedMapKey, .trailingBytes(count: 3)]
        for error in errors {
            #expect(error.description.hasSuffix("."))
            #expect(!error.description.contains("0x"))
        }
    }
}
