import Foundation
import Testing
@testable import QRCode

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("SVG rendering")
struct SVGTests {
    @Test("the document has a viewBox, one path, crisp edges and an escaped aria-label")
    func document() throws {
        let code = try QRCode.encode(Payloads.loginURL)
        let svg = try code.svg(moduleSize: 5, quietZone: 4, ariaLabel: "Scan \"me\" & <sign in>")
        let across = code.size + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(across * 5)\" height=\"\(across * 5)\""))
        #expect(svg.contains("viewBox=\"0 0 \(across) \(across)\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\" role=\"img\""))
        #expect(svg.contains("aria-label=\"Scan &quot;me&quot; &amp; &lt;sign in&gt;\""))
        #expect(svg.components(separatedBy: "<path").count == 2)
        #expect(svg.hasSuffix("</svg>"))
    }

    @Test("the runs in the path cover exactly the dark modules")
    func runs() throws {
        let code = try QRCode.encode(Payloads.totpURI, correction: .low)
        var dark = Set<Int>()
        let scanner = Scanner(string: code.pathData(offset: 0))
        scanner.charactersToBeSkipped = nil
        while scanner.scanString("M") != nil {
            let x = scanner.scanInt()!
            _ = scanner.scanString(" ")
            let y = scanner.scanInt()!
            _ = scanner.scanString("h")
            let run = scanner.scanInt()!
            #expect(scanner.scanString("v1h-\(run)z") != nil)
            for column in x..<(x + run) { #expect(dark.insert(y * code.size + column).inserted) }
        }
        #expect(scanner.isAtEnd)
        let expected = Set((0..<code.size * code.size).filter { code.modules[$0] })
        #expect(dark == expected)
    }

    @Test("the document is well-formed XML whatever the label", arguments: ["plain", "a\u{0}b\u{1F}c", "<&>\"'", "日本語 😀"])
    func wellFormed(label: String) throws {
        let svg = try QRCode.encode("x").svg(ariaLabel: label)
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
    }

    @Test("rsvg-convert renders it to a PNG that zbarimg decodes",
          .enabled(if: ExternalTools.hasRsvg && ExternalTools.hasZbar),
          arguments: [Payloads.totpURI, Payloads.loginURL, Payloads.multiByte(count: 300, seed: 3)])
    func scansAfterRasterising(_ text: String) throws {
        let directory = try TemporaryDirectory()
        let svg = try directory.write(Array(try QRCode.encode(text).svg(moduleSize: 4).utf8), named: "code.svg")
        let png = directory.url.appendingPathComponent("code.png")
        let conversion = try ExternalTools.run(tool: "rsvg-convert", ["-o", png.path, svg.path])
        try #require(conversion.status == 0, "\(conversion.stderr)")
        #expect(try ExternalTools.zbarDecode(png) == Array(text.utf8))
    }
}
