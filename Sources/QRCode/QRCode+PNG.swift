import Foundation

extension QRCode {
    /// Renders the symbol as a PNG image: 1-bit greyscale, black modules on a white quiet zone.
    ///
    /// The file is written here without zlib (see `PNGEncoder`), so it needs no image library. A
    /// version-40 code at the default size is about 70 KB, since the pixel data is stored uncompressed.
    ///
    /// - Parameters:
    ///   - moduleSize: pixels per module (``moduleSizeRange``); 4 by default.
    ///   - quietZone: light modules around the symbol (``quietZoneRange``); 4 by default.
    /// - Returns: the bytes of a complete PNG file.
    /// - Throws: ``QRCodeError/invalidModuleSize(_:)`` or ``QRCodeError/invalidQuietZone(_:)``.
    public func png(moduleSize: Int = 4, quietZone: Int = 4) throws(QRCodeError) -> [UInt8] {
        let layout = try RenderLayout(symbolSize: size, moduleSize: moduleSize, quietZone: quietZone)
        let pixels = layout.pixelsAcross
        let rowBytes = (pixels + 7) / 8
        var scanlines = [UInt8]()
        scanlines.reserveCapacity((rowBytes + 1) * pixels)
        for moduleRow in 0..<layout.modulesAcross {
            let line = pixelRow(moduleRow - quietZone, layout: layout, rowBytes: rowBytes)
            for _ in 0..<moduleSize {
                scanlines.append(0)  // filter type 0: the row is stored as is
                scanlines.append(contentsOf: line)
            }
        }
        return PNGEncoder.grayscale1Bit(width: pixels, height: pixels, scanlines: scanlines)
    }

    /// Renders the PNG and wraps it as a `data:image/png;base64,…` URL, for an `<img src>` in HTML.
    ///
    /// - Throws: as ``png(moduleSize:quietZone:)``.
    public func pngDataURL(moduleSize: Int = 4, quietZone: Int = 4) throws(QRCodeError) -> String {
        QRCode.dataURL(png: try png(moduleSize: moduleSize, quietZone: quietZone))
    }

    /// Wraps PNG bytes as a `data:image/png;base64,…` URL.
    public static func dataURL(png bytes: [UInt8]) -> String {
        "data:image/png;base64," + Data(bytes).base64EncodedString()
    }

    /// One row of 1-bit pixels (1 = white) for module row `y` of the symbol; rows outside are all white.
    private func pixelRow(_ y: Int, layout: RenderLayout, rowBytes: Int) -> [UInt8] {
        var line = [UInt8](repeating: 0xFF, count: rowBytes)
        guard y >= 0, y < size else { return line }
        for x in 0..<size where isDark(x: x, y: y) {
            let first = (x + layout.quietZone) * layout.moduleSize
            for pixel in first..<(first + layout.moduleSize) {
                line[pixel >> 3] &= ~(UInt8(0x80) >> UInt8(pixel & 7))
            }
        }
        return line
    }
}
