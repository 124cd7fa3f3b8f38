/// Percent-encoding of a value for a URL query or form body (RFC 3986 §2.1, §2.3): the unreserved
/// characters `A–Z a–z 0–9 - . _ ~` stay, every other UTF-8 byte becomes `%XX` (upper-case hex).
///
/// The same bytes as Foundation's `addingPercentEncoding(withAllowedCharacters:)` with that set,
/// which goes through `NSString` and a `CharacterSet` lookup per character for every redirect a
/// sign-in builds.
public enum PercentEncoding {
    /// `text` with everything but the unreserved characters percent-encoded.
    public static func unreserved(_ text: String) -> String {
        guard text.utf8.contains(where: { !isUnreserved($0) }) else { return text }
        var encoded = [UInt8]()
        encoded.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
