import Foundation
import IdentityCore
import LDAPClient

/// What a user types as a user name reaches LDAP filters and DNs only escaped.
enum LDAPFuzzing {
    static func filterAndDN(_ data: Data) {
        let value = String(decoding: data, as: UTF8.self)

        // RFC 4515: the escaped value is plain printable ASCII without `(`, `)`, `*` or a bare `\`,
        // so `(uid=<value>)` stays one equality item; unescaping gives the user's bytes back.
        let escaped = LDAPEscaping.filterValue(value)
        let bytes = Array(escaped.utf8)
        var unescaped: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            require(byte >= 0x20 && byte < 0x7F, "a filter value kept byte \(byte)")
            require(byte != UInt8(ascii: "(") && byte != UInt8(ascii: ")") && byte != UInt8(ascii: "*"), "a filter value kept a metacharacter")
            if byte == UInt8(ascii: "\\") {
                guard index + 2 < bytes.count, let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) else {
                    return require(false, "a backslash not followed by two hex digits")
                }
                unescaped.append(high << 4 | low)
                index += 3
            } else {
                unescaped.append(byte)
                index += 1
            }
        }
        require(unescaped == Array(value.utf8), "the filter value does not unescape to the input")

        // The filled template keeps its own structure: the same parentheses as the template.
        let filter = LDAPEscaping.fill("(&(objectClass=person)(uid={username}))", ["username": escaped])
        require(filter.filter { $0 == "(" }.count == 3 && filter.filter { $0 == ")" }.count == 3, "the filter's structure changed")

        // RFC 4514: the DN value stays inside its RDN and reads back as the user's text.
        let dn = "uid=" + LDAPEscaping.dnValue(value) + ",ou=people,dc=example,dc=org"
        let expected = value.trimmingCharacters(in: [" "])
        let firstValue = LDAPEscaping.firstRDNValue(dn)
        require(firstValue == (expected.isEmpty ? nil : expected), "the DN value does not read back as the input")
    }
}
