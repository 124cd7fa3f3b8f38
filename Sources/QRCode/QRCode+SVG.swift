extension QRCode {
    /// Renders the symbol as a compact, self-contained SVG document.
    ///
    /// The dark modules form a single `<path>` made of one rectangle per horizontal run, drawn in
    /// module units inside a `viewBox`, with `shape-rendering="crispEdges"` so edges stay sharp at any
    /// scale. A white background covers the quiet zone, so the code scans on dark pages too. The root
    /// carries `role="img"` and the given `aria-label` for screen readers.
    ///
    /// - Parameters:
    ///   - moduleSize: the intrinsic `width`/`height` per module, in CSS pixels (``moduleSizeRange``).
    ///   - quietZone: light modules around the symbol (``quietZoneRange``); 4 by default, as the standard asks.
    ///   - ariaLabel: the accessible name; XML-escaped here.
    /// - Throws: ``QRCodeError/invalidModuleSize(_:)`` or ``QRCodeError/invalidQuietZone(_:)``.
    public func svg(moduleSize: Int = 4, quietZone: Int = 4, ariaLabel: String = "QR code") throws(QRCodeError) -> String {
        let layout = try RenderLayout(symbolSize: size, moduleSize: moduleSize, quietZone: quietZone)
        let across = layout.modulesAcross
        let pixels = layout.pixelsAcross
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(pixels)\" height=\"\(pixels)\""
            + " viewBox=\"0 0 \(across) \(across)\" shape-rendering=\"crispEdges\" role=\"img\""
            + " aria-label=\"\(XMLText.escapedAttribute(ariaLabel))\">"
            + "<rect width=\"\(across)\" height=\"\(across)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(pathData(offset: quietZone))\"/></svg>"
    }

    /// Path data with one closed rectangle `M x y h n v1 h-n z` for each horizontal run of dark modules.
    func pathData(offset: Int) -> String {
        var data = ""
        data.reserveCapacity(size * size)
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                var end = x + 1
                while end < size && isDark(x: end, y: y) { end += 1 }
                let run = end - x
                data += "M\(x + offset) \(y + offset)h\(run)v1h-\(run)z"
                x = end
            }
        }
        return data
    }
}

/// Escaping for text placed inside an XML attribute value.
enum XMLText {
    /// Escapes the five XML special characters and replaces characters XML 1.0 forbids (most C0
    /// controls, U+FFFE, U+FFFF) with U+FFFD, so any Swift string yields a well-formed attribute.
    static func escapedAttribute(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result += "&#\(scalar.value);"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                result.unicodeScalars.append("\u{FFFD}")
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
