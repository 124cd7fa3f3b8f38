import Foundation
import Testing
import QRCode

/// Encodes many payloads, renders them to PNG and reads them back with an independent decoder.
@Suite("Scanning rendered codes with zbarimg", .enabled(if: ExternalTools.hasZbar))
struct ScanRoundTripTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let correction: QRCode.ErrorCorrection
        let kind: String
        var testDescription: String { "\(kind) \(text.utf8.count) B, \(correction)" }
    }

    /// Short and long payloads, including each level's limit (ASCII) and limit − 1 (UTF-8 with ECI) and one past.
    static let lengths = [1, 2, 3, 7, 17, 32, 100, 255, 256, 500, 1000, 1272, 1273, 1274, 1500, 1662, 1663, 1664, 2000,
                          2330, 2331, 2332, 2952, 2953, 2954]

    static let cases: [Case] = {
        var cases = [Case]()
        for (level, correction) in QRCode.ErrorCorrection.allCases.enumerated() {
            cases.append(Case(text: Payloads.totpURI, correction: correction, kind: "otpauth URI"))
            cases.append(Case(text: Payloads.loginURL, correction: correction, kind: "login URL"))
            for (index, length) in lengths.enumerated() {
                let seed = UInt64(index * 4 + level)
                cases.append(Case(text: Payloads.ascii(count: length, seed: seed), correction: correction, kind: "ASCII"))
                cases.append(Case(text: Payloads.multiByte(count: length, seed: seed), correction: correction, kind: "UTF-8"))
            }
        }
        return cases
    }()

    @Test("zbarimg decodes exactly the input, or the input is reported too long", arguments: cases)
    func roundTrip(_ item: Case) throws {
        let bytes = Array(item.text.utf8)
        let isASCII = bytes.allSatisfy { $0 < 0x80 }
        guard bytes.count <= item.correction.maximumByteCount - (isASCII ? 0 : 1) else {
            #expect(throws: QRCodeError.self) { try QRCode.encode(item.text, correction: item.correction) }
            return
        }
        let code = try QRCode.encode(item.text, correction: item.correction)
        let directory = try TemporaryDirectory()
        let file = try directory.write(try code.png(moduleSize: 4), named: "code.png")
        let decoded = try ExternalTools.zbarDecode(file)
        #expect(decoded == bytes, "version \(code.version): zbarimg read \(decoded.map { String(decoding: $0, as: UTF8.self) } ?? "nothing")")
    }
}
