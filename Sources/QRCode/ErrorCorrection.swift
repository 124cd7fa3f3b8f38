import CQREncode

extension QRCode {
    /// How much of a symbol can be damaged or hidden and still be read back.
    ///
    /// Higher levels survive more damage (a logo in the middle, a glare on a screen) at the price of
    /// capacity and a denser symbol. `.medium` suits codes shown on screens for scanning by phones.
    public enum ErrorCorrection: String, Sendable, Hashable, CaseIterable, Codable {
        /// About 7 % of codewords can be restored.
        case low
        /// About 15 % of codewords can be restored.
        case medium
        /// About 25 % of codewords can be restored.
        case quartile
        /// About 30 % of codewords can be restored.
        case high

        /// The most bytes a symbol at this level holds in byte mode (version 40, ISO/IEC 18004 table 7).
        ///
        /// ``QRCode/encode(bytes:correction:)`` and ASCII text reach this limit; non-ASCII text, which
        /// carries a UTF-8 ECI header, holds one byte less. Longer input is rejected up front with
        /// ``QRCodeError/inputTooLong(byteCount:maximum:)``.
        public var maximumByteCount: Int {
            switch self {
            case .low: 2953
            case .medium: 2331
            case .quartile: 1663
            case .high: 1273
            }
        }

        /// The matching libqrencode constant.
        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }
}
