import CQREncode

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension QRCode {
    /// The ECI assignment number for UTF-8 (ISO/IEC 18004 §6.4.2, AIM ECI 26).
    static let utf8ECI: UInt32 = 26

    /// Encodes text as a QR Code in byte mode.
    ///
    /// The text's UTF-8 bytes are stored exactly as they are (no case folding, no alphanumeric
    /// shortcuts), so any string — an `otpauth://` URI, a login URL with a UUID, non-Latin text — is read
    /// back byte for byte. Pure-ASCII text (every URL) is plain byte mode, which every scanner reads.
    /// Text with non-ASCII characters is prefixed with the UTF-8 ECI designator, because byte mode
    /// otherwise means ISO-8859-1 and scanners that guess (ZBar, for one) misread short UTF-8 as
    /// Shift-JIS; that header costs one byte of capacity. The smallest version that fits is chosen.
    ///
    /// - Parameters:
    ///   - text: the payload: 1 to `correction.maximumByteCount` UTF-8 bytes (one fewer if non-ASCII).
    ///   - correction: the error-correction level; `.medium` by default.
    /// - Throws: ``QRCodeError/emptyInput``, ``QRCodeError/inputTooLong(byteCount:maximum:)``, or
    ///   ``QRCodeError/encodingFailed(errno:)``. Oversized input is an error, never a crash.
    public static func encode(_ text: String, correction: ErrorCorrection = .medium) throws(QRCodeError) -> QRCode {
        let bytes = Array(text.utf8)
        let isASCII = bytes.allSatisfy { $0 < 0x80 }
        return try encode(bytes, correction: correction, eci: isASCII ? nil : utf8ECI)
    }

    /// Encodes raw bytes (which may include NUL) as a QR Code in byte mode, with no ECI header.
    ///
    /// Safe to call from many threads at once: each call owns its input and result, and libqrencode as
    /// Debian builds it (with pthreads) guards its shared lookup tables with mutexes. The C result is
    /// copied into the returned value and freed before this returns, on every path.
    ///
    /// - Throws: as ``encode(_:correction:)``; the limit is `correction.maximumByteCount`.
    public static func encode(bytes: [UInt8], correction: ErrorCorrection = .medium) throws(QRCodeError) -> QRCode {
        try encode(bytes, correction: correction, eci: nil)
    }

    private static func encode(_ bytes: [UInt8], correction: ErrorCorrection, eci: UInt32?) throws(QRCodeError) -> QRCode {
        guard !bytes.isEmpty else { throw .emptyInput }
        // An ECI header takes 12 bits, which costs exactly one byte at every level's version 40.
        let maximum = correction.maximumByteCount - (eci == nil ? 0 : 1)
        // Checked before any C call: it also keeps the count within the C `int` it is passed as.
        guard bytes.count <= maximum else { throw .inputTooLong(byteCount: bytes.count, maximum: maximum) }

        let (symbol, failure) = bytes.withUnsafeBufferPointer { buffer in
            symbolOrErrno(buffer, level: correction.level, eci: eci)
        }
        guard let symbol else {
            if failure == ERANGE { throw .inputTooLong(byteCount: bytes.count, maximum: maximum) }
            throw .encodingFailed(errno: failure)
        }
        defer { QRcode_free(symbol) }
        return try copy(symbol.pointee, correction: correction)
    }

    /// Calls libqrencode and returns its symbol, or nil and the `errno` it set (read at once, before
    /// anything else can change it). Every `QRinput` made here is freed here.
    private static func symbolOrErrno(
        _ data: UnsafeBufferPointer<UInt8>, level: QRecLevel, eci: UInt32?
    ) -> (UnsafeMutablePointer<QRcode>?, Int32) {
        errno = 0
        guard let eci else {
            let symbol = QRcode_encodeData(Int32(data.count), data.baseAddress, 0, level)
            return (symbol, errno)
        }
        guard let input = QRinput_new2(0, level) else { return (nil, errno) }
        defer { QRinput_free(input) }
        guard QRinput_appendECIheader(input, eci) == 0,
            QRinput_append(input, QR_MODE_8, Int32(data.count), data.baseAddress) == 0
        else { return (nil, errno) }
        let symbol = QRcode_encodeInput(input)
        return (symbol, errno)
    }

    /// Copies libqrencode's module bytes (bit 0 set for dark) into a Swift matrix.
    private static func copy(_ symbol: CQREncode.QRcode, correction: ErrorCorrection) throws(QRCodeError) -> QRCode {
        let width = Int(symbol.width)
        guard width >= 21, width <= 177, let data = symbol.data else { throw .encodingFailed(errno: 0) }
        let count = width * width
        let modules = [Bool](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer[index] = data[index] & 1 == 1 }
            initialized = count
        }
        return QRCode(size: width, version: Int(symbol.version), correction: correction, modules: modules)
    }
}
