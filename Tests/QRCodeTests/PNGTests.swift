import Foundation
import Testing
@testable import QRCode

@Suite("PNG rendering")
struct PNGTests {
    @Test("checksums match their published check values")
    func checksums() {
        var crc = CRC32()
        crc.update(Array("123456789".utf8))
        #expect(crc.value == 0xCBF4_3926)
        var adler = Adler32()
        adler.update(Array("Wikipedia".utf8))
        #expect(adler.value == 0x11E6_0398)
        var long = Adler32()
        long.update([UInt8](repeating: 0xFF, count: 100_000))  // crosses the NMAX chunking
        #expect(long.value == 0x149A_302C)  // Python: zlib.adler32(b"\xff" * 100000)
    }

    @Test("the file has a signature, a 1-bit greyscale IHDR and ends with IEND")
    func layout() throws {
        let code = try QRCode.encode(Payloads.loginURL)
        let png = try code.png(moduleSize: 3, quietZone: 4)
        let side = (code.size + 8) * 3
        #expect(Array(png.prefix(8)) == PNGEncoder.signature)
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        #expect(Array(png[16..<24]) == [0, 0, UInt8(side >> 8), UInt8(side & 0xFF), 0, 0, UInt8(side >> 8), UInt8(side & 0xFF)])
        #expect(Array(png[24..<29]) == [1, 0, 0, 0, 0])
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    }

    @Test("renderer parameters are checked")
    func parameters() throws {
        let code = try QRCode.encode("x")
        #expect(throws: QRCodeError.invalidModuleSize(0)) { try code.png(moduleSize: 0) }
        #expect(throws: QRCodeError.invalidModuleSize(33)) { try code.png(moduleSize: 33) }
        #expect(throws: QRCodeError.invalidQuietZone(-1)) { try code.png(quietZone: -1) }
        #expect(throws: QRCodeError.invalidQuietZone(17)) { try code.svg(quietZone: 17) }
    }

    @Test("the data URL carries the PNG bytes in base64")
    func dataURL() throws {
        let code = try QRCode.encode(Payloads.totpURI)
        let url = try code.pngDataURL(moduleSize: 2)
        let prefix = "data:image/png;base64,"
        #expect(url.hasPrefix(prefix))
        let decoded = Data(base64Encoded: String(url.dropFirst(prefix.count))).map(Array.init)
        #expect(try decoded == code.png(moduleSize: 2))
    }

    @Test("pngcheck accepts the file (CRCs, zlib stream)", .enabled(if: ExternalTools.hasPngcheck))
    func pngcheck() throws {
        let directory = try TemporaryDirectory()
        // A version-40 code at 8 px per module: its pixel data spans several stored deflate blocks.
        let code = try QRCode.encode(Payloads.ascii(count: 2953, seed: 9), correction: .low)
        let file = try directory.write(try code.png(moduleSize: 8), named: "big.png")
        let output = try ExternalTools.run(tool: "pngcheck", ["-v", file.path])
        #expect(output.status == 0, "\(String(decoding: output.stdout, as: UTF8.self))")
    }

    @Test("pypng reads back exactly the module matrix", .enabled(if: ExternalTools.hasPyPNG))
    func pypng() throws {
        let directory = try TemporaryDirectory()
        for (text, moduleSize, quietZone) in [(Payloads.loginURL, 1, 0), (Payloads.totpURI, 3, 4), ("Привет", 5, 2)] {
            let code = try QRCode.encode(text, correction: .high)
            let file = try directory.write(try code.png(moduleSize: moduleSize, quietZone: quietZone), named: "m.png")
            let script = """
                import png, sys
                w, h, rows, info = png.Reader(filename=sys.argv[1]).read()
                assert info['bitdepth'] == 1 and info['greyscale'] and not info['alpha'], info
                rows = [list(r) for r in rows]
                m, q = int(sys.argv[2]), int(sys.argv[3])
                n = w // m - 2 * q
                for y in range(n):
                    # every pixel of a module must agree with its first pixel
                    cells = []
                    for x in range(n):
                        block = {rows[(y + q) * m + dy][(x + q) * m + dx] for dy in range(m) for dx in range(m)}
                        assert len(block) == 1, (x, y, block)
                        cells.append('1' if block == {0} else '0')
                    print(''.join(cells))
                """
            let python = try #require(ExternalTools.pythonWithPyPNG)
            let output = try ExternalTools.run(python, ["-c", script, file.path, "\(moduleSize)", "\(quietZone)"])
            #expect(output.status == 0, "\(output.stderr)")
            let expected = (0..<code.size).map { y in
                String((0..<code.size).map { code.isDark(x: $0, y: y) ? "1" : "0" })
            }
            #expect(String(decoding: output.stdout, as: UTF8.self).split(separator: "\n").map(String.init) == expected)
        }
    }
}
