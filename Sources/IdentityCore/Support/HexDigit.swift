/// One ASCII hexadecimal digit, as percent-encoding (RFC 3986), LDAP filter escapes (RFC 4515) and
/// DN escapes (RFC 4514) write them.
public enum HexDigit {
    /// The digit's value, nil for a byte that is not `0-9`, `a-f` or `A-F`.
    @inlinable
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
