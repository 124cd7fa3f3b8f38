import Testing
@testable import QRCode

@Suite("QR encoding")
struct EncodeTests {
    @Test("a short URL gives a valid symbol with finder patterns")
    func structure() throws {
        let code = try QRCode.encode(Payloads.loginURL)
        #expect(code.correction == .medium)
        #expect((1...40).contains(code.version))
        #expect(code.size == 17 + 4 * code.version)
        #expect(code.modules.count == code.size * code.size)
        // Each finder pattern's outer ring is dark and the ring inside it light.
        for (left, top) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            #expect(code.isDark(x: left, y: top) && code.isDark(x: left + 6, y: top + 6))
            #expect(!code.isDark(x: left + 1, y: top + 1) && code.isDark(x: left + 3, y: top + 3))
        }
    }

    @Test("coordinates outside the symbol read as light")
    func outside() throws {
        let code = try QRCode.encode("x")
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: 0, y: code.size) && !code.isDark(x: .max, y: .min))
    }

    @Test("empty input is an error")
    func empty() {
        #expect(throws: QRCodeError.emptyInput) { try QRCode.encode("") }
    }

    @Test("the largest input that fits encodes as version 40; one more byte is an error", arguments: QRCode.ErrorCorrection.allCases)
    func capacity(_ level: QRCode.ErrorCorrection) throws {
        let maximum = level.maximumByteCount
        let largest = try QRCode.encode(Payloads.ascii(count: maximum, seed: 1), correction: level)
        #expect(largest.version == 40 && largest.size == 177)
        #expect(throws: QRCodeError.inputTooLong(byteCount: maximum + 1, maximum: maximum)) {
            try QRCode.encode(Payloads.ascii(count: maximum + 1, seed: 1), correction: level)
        }
    }

    @Test("non-ASCII text carries a UTF-8 ECI header and so holds one byte less", arguments: QRCode.ErrorCorrection.allCases)
    func utf8Capacity(_ level: QRCode.ErrorCorrection) throws {
        let maximum = level.maximumByteCount - 1
        let largest = try QRCode.encode(Payloads.multiByte(count: maximum, seed: 2), correction: level)
        #expect(largest.version == 40)
        #expect(throws: QRCodeError.inputTooLong(byteCount: maximum + 1, maximum: maximum)) {
            try QRCode.encode(Payloads.multiByte(count: maximum + 1, seed: 2), correction: level)
        }
        // The same bytes as raw data get no header and still fit.
        #expect(throws: Never.self) { try QRCode.encode(bytes: Array(Payloads.multiByte(count: maximum + 1, seed: 2).utf8), correction: level) }
    }

    @Test("megabytes of input are rejected without trapping")
    func huge() {
        let bytes = [UInt8](repeating: 0x41, count: 8 << 20)
        #expect(throws: QRCodeError.inputTooLong(byteCount: bytes.count, maximum: 2331)) {
            try QRCode.encode(bytes: bytes)
        }
    }

    @Test("byte mode keeps case and NUL bytes: different inputs give different symbols")
    func byteMode() throws {
        #expect(try QRCode.encode("ABC") != QRCode.encode("abc"))
        #expect(try QRCode.encode(bytes: [0x61, 0x00, 0x62]) != QRCode.encode(bytes: [0x61, 0x62]))
    }

    @Test("concurrent encoding gives the same symbols as serial encoding")
    func concurrent() async throws {
        let inputs = (0..<64).map { Payloads.ascii(count: 20 + $0 * 23, seed: UInt64($0)) }
        let serial = try inputs.map { try QRCode.encode($0, correction: .quartile) }
        let parallel = try await withThrowingTaskGroup(of: (Int, QRCode).self) { group in
            for (index, input) in inputs.enumerated() {
                group.addTask { (index, try QRCode.encode(input, correction: .quartile)) }
            }
            var results = [QRCode?](repeating: nil, count: inputs.count)
            for try await (index, code) in group { results[index] = code }
            return results
        }
        #expect(parallel == serial)
    }
}
