/// Trimming and prefix checks on ASCII that stay on UTF-8 bytes: Foundation's
/// `trimmingCharacters(in:)` bridges through NSString, on every validate request.
extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (the whitespace HTTP headers allow).
    ///
    /// Only the ends are looked at, on the contiguous UTF-8 bytes when the string has them (native
    /// Swift strings do) rather than walking every byte of an 800-byte bearer token through the
    /// generic collection witnesses.
    public var trimmingSpacesAndTabs: String {
        if let trimmed = utf8.withContiguousStorageIfAvailable(Self.trimmedSpacesAndTabs) {
            return trimmed
        }
        return Array(utf8).withUnsafeBufferPointer(Self.trimmedSpacesAndTabs)
    }

    private static func trimmedSpacesAndTabs(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Whether the text starts with `prefix`, ignoring ASCII case (`prefix` must be lowercase ASCII).
    ///
    /// On the contiguous UTF-8 bytes, like the trimming above, rather than through the generic
    /// iterators (the body's media type and the bearer scheme of every introspection).
    public func hasASCIICaseInsensitivePrefix(_ prefix: String) -> Bool {
        if let result = utf8.withContiguousStorageIfAvailable({ Self.hasASCIICaseInsensitivePrefix($0, prefix) }) {
            return result
        }
        return Array(utf8).withUnsafeBufferPointer { Self.hasASCIICaseInsensitivePrefix($0, prefix) }
    }

    private static func hasASCIICaseInsensitivePrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: String) -> Bool {
        var prefix = prefix
        return prefix.withUTF8 { expected in
            guard bytes.count >= expected.count else { return false }
            for index in 0..<expected.count {
                let byte = bytes[index]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
            }
            return true
        }
    }
}
