extension QRCode {
    /// Module sizes (pixels per module) the renderers accept.
    ///
    /// The upper bound keeps the largest image (version 40, widest quiet zone) near 10,000 pixels
    /// square, so a caller-supplied size can never make a renderer allocate without limit.
    public static let moduleSizeRange: ClosedRange<Int> = 1...32

    /// Quiet-zone widths (in modules) the renderers accept. The standard asks for at least 4.
    public static let quietZoneRange: ClosedRange<Int> = 0...16
}

/// The checked geometry shared by the renderers: the symbol plus its quiet zone, in modules and pixels.
struct RenderLayout {
    /// Pixels per module.
    let moduleSize: Int
    /// Light modules on each side of the symbol.
    let quietZone: Int
    /// Modules across the whole image, quiet zone included.
    let modulesAcross: Int

    /// Pixels across the whole image.
    var pixelsAcross: Int { modulesAcross * moduleSize }

    init(symbolSize: Int, moduleSize: Int, quietZone: Int) throws(QRCodeError) {
        guard QRCode.moduleSizeRange.contains(moduleSize) else { throw .invalidModuleSize(moduleSize) }
        guard QRCode.quietZoneRange.contains(quietZone) else { throw .invalidQuietZone(quietZone) }
        self.moduleSize = moduleSize
        self.quietZone = quietZone
        self.modulesAcross = symbolSize + 2 * quietZone
    }
}
