/// A QR Code symbol: a square matrix of dark and light modules, ready to be rendered.
///
/// Build one with ``QRCode/encode(_:correction:)``, then draw it with ``QRCode/svg(moduleSize:quietZone:ariaLabel:)``
/// or ``QRCode/png(moduleSize:quietZone:)``. The value owns a copy of the matrix (the C result it was read
/// from is already freed), so it is an immutable, `Sendable` value that can be cached and shared freely.
public struct QRCode: Sendable, Hashable {
    /// The number of modules along each side, without the quiet zone (21 for version 1, 177 for version 40).
    public let size: Int

    /// The QR Code version (1...40) that libqrencode chose: the smallest one that fits the data.
    public let version: Int

    /// The error-correction level the symbol was encoded with.
    public let correction: ErrorCorrection

    /// Row-major module colours, `true` for dark; exactly `size * size` entries.
    let modules: [Bool]

    init(size: Int, version: Int, correction: ErrorCorrection, modules: [Bool]) {
        precondition(size > 0 && modules.count == size * size, "module matrix must be size × size")
        self.size = size
        self.version = version
        self.correction = correction
        self.modules = modules
    }

    /// Whether the module at column `x`, row `y` is dark.
    ///
    /// Coordinates count from the top-left corner of the symbol, excluding the quiet zone. Anything
    /// outside `0..<size` is reported as light, which is what the quiet zone around a symbol is, so
    /// renderers may ask about their margin without bounds checks of their own.
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}
