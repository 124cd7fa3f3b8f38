/// Why a QR Code could not be encoded or rendered.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input was empty; a QR Code must carry at least one byte.
    case emptyInput
    /// The input needs more bytes than the largest symbol (version 40) holds at the requested level.
    case inputTooLong(byteCount: Int, maximum: Int)
    /// libqrencode returned no symbol; `errno` is the code it set (for example `ENOMEM`).
    case encodingFailed(errno: Int32)
    /// A renderer was asked for a module size outside ``QRCode/moduleSizeRange``.
    case invalidModuleSize(Int)
    /// A renderer was asked for a quiet zone outside ``QRCode/quietZoneRange``.
    case invalidQuietZone(Int)

    public var description: String {
        switch self {
        case .emptyInput:
            "QR code input is empty"
        case .inputTooLong(let byteCount, let maximum):
            "QR code input is \(byteCount) bytes; at most \(maximum) fit at this error-correction level"
        case .encodingFailed(let code):
            "libqrencode failed to encode the input (errno \(code))"
        case .invalidModuleSize(let value):
            "module size \(value) is outside \(QRCode.moduleSizeRange)"
        case .invalidQuietZone(let value):
            "quiet zone \(value) is outside \(QRCode.quietZoneRange)"
        }
    }
}
