/// CRC-32 as PNG chunks use it (ISO 3309 / ITU-T V.42, reflected polynomial 0xEDB88320).
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private var register: UInt32 = 0xFFFF_FFFF

    /// Feeds more bytes.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            register = CRC32.table[Int((register ^ UInt32(byte)) & 0xFF)] ^ (register >> 8)
        }
    }

    /// The checksum of everything fed so far.
    var value: UInt32 { register ^ 0xFFFF_FFFF }
}

/// Adler-32, the checksum that ends a zlib stream (RFC 1950 §8.2).
struct Adler32 {
    private static let modulus: UInt32 = 65_521
    /// The most bytes that can be summed before `b` could overflow 32 bits (RFC 1950's NMAX).
    private static let chunk = 5_552

    private var a: UInt32 = 1
    private var b: UInt32 = 0

    /// Feeds more bytes.
    mutating func update(_ bytes: [UInt8]) {
        var start = 0
        while start < bytes.count {
            let end = Swift.min(start + Adler32.chunk, bytes.count)
            for byte in bytes[start..<end] {
                a &+= UInt32(byte)
                b &+= a
            }
            a %= Adler32.modulus
            b %= Adler32.modulus
            start = end
        }
    }

    /// The checksum of everything fed so far.
    var value: UInt32 { (b << 16) | a }
}
