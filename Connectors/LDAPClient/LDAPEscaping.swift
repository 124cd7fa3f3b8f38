import Foundation
import IdentityCore

/// Escaping for values put into LDAP filters and DNs, so that user input is always data.
public enum LDAPEscaping {
    /// RFC 4515 §3: `*`, `(`, `)`, `\` and NUL become `\2a`, `\28`, `\29`, `\5c`, `\00`; so do all
    /// other bytes outside printable ASCII, so the filter stays plain ASCII.
    public static func filterValue(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "*"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"), 0, 0x80...0xFF, 0x01..<0x20, 0x7F:
                out += "\\" + hex(byte)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    /// RFC 4514 §2.4: escapes an attribute value for use inside a DN (`uid=<value>,ou=people,...`).
    /// UTF-8 beyond ASCII is kept as it is (RFC 4514 allows it); control bytes become `\XX`.
    public static func dnValue(_ value: String) -> String {
        let bytes = Array(value.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "+"), UInt8(ascii: "\""), UInt8(ascii: "\\"),
                 UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ";"), UInt8(ascii: "="):
                out += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: " ") where index == 0 || index == bytes.count - 1:
                out += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "#") where index == 0:
                out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20, 0x7F:
                out += Array(("\\" + hex(byte)).utf8)
            default:
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Replaces `{name}` placeholders in a filter or DN template with already escaped values, in
    /// one pass over the template: a value that itself contains `{dn}` or `{username}` stays
    /// literal text (filling placeholder by placeholder would substitute into earlier values).
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let value = values[String(rest[afterOpen..<close])] {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result.append("{")
                rest = rest[afterOpen...]
            }
        }
        return result + rest
    }

    /// The value of the first RDN of `dn` (`cn=admins,ou=groups,...` → `admins`), unescaped;
    /// `nil` when the DN is malformed. Used to name groups found through `memberOf`.
    public static func firstRDNValue(_ dn: String) -> String? {
        let bytes = Array(dn.utf8)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        var value: [UInt8] = []
        var index = equals + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "+") { break }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count else { return nil }
                if index + 2 < bytes.count, let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) {
                    value.append(high << 4 | low)
                    index += 3
                } else {
                    value.append(bytes[index + 1])
                    index += 2
                }
                continue
            }
            value.append(byte)
            index += 1
        }
        let text = String(decoding: value, as: UTF8.self).trimmingCharacters(in: [" "])
        return text.isEmpty ? nil : text
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
