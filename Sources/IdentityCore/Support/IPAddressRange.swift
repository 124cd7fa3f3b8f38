#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address block in CIDR form (`10.0.0.0/8`, `::1`, `fd00::/8`); a bare address
/// is a block of one. Used for `server.trustedProxies`.
public struct IPAddressRange: Sendable, Equatable, CustomStringConvertible {
    /// Network bytes (4 or 16).
    let network: [UInt8]
    let prefixLength: Int
    public let description: String

    /// Parses `text`; nil when it is not an address or CIDR block.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.addressBytes(String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed), !parts[1].hasPrefix("+") else { return nil }
            length = parsed
        }
        network = Self.masked(bytes, length)
        prefixLength = length
        description = text
    }

    /// Whether `address` (textual IPv4 or IPv6) lies in this block. An IPv4-mapped IPv6 address
    /// (`::ffff:10.1.2.3`) counts as its IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.addressBytes(address) else { return false }
        if bytes.count == 16, network.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        return bytes.count == network.count && Self.masked(bytes, prefixLength) == network
    }

    /// The 4 or 16 bytes of a textual address, or nil.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bitsHere = max(0, min(8, length - index * 8))
            return bitsHere == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xff << (8 - bitsHere))
        }
    }
}

/// The address of the client a request comes from, seen through trusted reverse proxies.
public enum ClientAddress {
    /// `peer` unless it is a trusted proxy; then the right-most address of `X-Forwarded-For`
    /// that is not a trusted proxy (each proxy appends the address it saw, so everything left of
    /// the first untrusted hop could be forged by the client). A malformed entry ends the walk
    /// at the last trusted hop, so junk in the header never becomes an address.
    public static func resolve(peer: String?, forwardedFor: [String], trusted: [IPAddressRange]) -> String? {
        guard let peer, !trusted.isEmpty, trusted.contains(where: { $0.contains(peer) }) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: " \t") }
        var client = peer
        for hop in hops.reversed() {
            guard IPAddressRange.addressBytes(hop) != nil else { return client }
            client = hop
            if !trusted.contains(where: { $0.contains(hop) }) { return hop }
        }
        return client
    }
}

private extension StringProtocol {
    func trimmingCharacters(in characters: String) -> String {
        var text = Substring(self)
        while let first = text.first, characters.contains(first) { text.removeFirst() }
        while let last = text.last, characters.contains(last) { text.removeLast() }
        return String(text)
    }
}

extension ClientAddress {
    /// The key one client address is counted under: IPv4 as it is, IPv6 by its /64 (one home
    /// or device usually gets a whole /64, so counting single IPv6 addresses would let a client
    /// rotate through 2^64 of them). An IPv4-mapped IPv6 address counts as its IPv4 address;
    /// text that is not an address is kept as it is.
    public static func throttleKey(_ address: String) -> String {
        guard var bytes = IPAddressRange.addressBytes(address) else { return address }
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        let prefix = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return prefix.joined(separator: ":") + "::/64"
    }
}
