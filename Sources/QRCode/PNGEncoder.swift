/// A minimal PNG writer for 1-bit greyscale images (ISO/IEC 15948, RFC 1950/1951).
///
/// It writes the signature, `IHDR`, a single `IDAT` holding a zlib stream of *stored* (uncompressed)
/// deflate blocks, and `IEND`, each chunk with its CRC-32. Stored blocks keep the writer tiny and free
/// of a zlib dependency; QR images are small enough that compression is not worth the code.
enum PNGEncoder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A PNG file from `scanlines`: `height` rows, each a filter-type byte then `(width + 7) / 8` bytes.
    static func grayscale1Bit(width: Int, height: Int, scanlines: [UInt8]) -> [UInt8] {
        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [1, 0, 0, 0, 0]  // bit depth 1, colour type 0 (greyscale), deflate, adaptive filters, no interlace

        var file = signature
        appendChunk("IHDR", header, to: &file)
        appendChunk("IDAT", Zlib.storedStream(scanlines), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// Appends length, type, data and the CRC-32 of type + data.
    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        file.appendBigEndian(UInt32(data.count))
        file += typeBytes
        file += data
        var crc = CRC32()
        crc.update(typeBytes)
        crc.update(data)
        file.appendBigEndian(crc.value)
    }
}

/// zlib framing (RFC 1950) around deflate stored blocks (RFC 1951 §3.2.4).
enum Zlib {
    /// The largest payload of one stored block.
    static let maximumStoredBlock = 65_535

    /// A complete zlib stream holding `data` uncompressed.
    static func storedStream(_ data: [UInt8]) -> [UInt8] {
        let blocks = max(1, (data.count + maximumStoredBlock - 1) / maximumStoredBlock)
        var stream: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary, "fastest" (FCHECK makes it a multiple of 31)
        stream.reserveCapacity(data.count + blocks * 5 + 6)
        var start = 0
        repeat {
            let end = min(start + maximumStoredBlock, data.count)
            let length = UInt16(end - start)
            stream.append(end == data.count ? 1 : 0)  // BFINAL on the last block, BTYPE 00 (stored)
            stream.append(UInt8(length & 0xFF))
            stream.append(UInt8(length >> 8))
            stream.append(UInt8(~length & 0xFF))
            stream.append(UInt8(~length >> 8))
            stream += data[start..<end]
            start = end
        } while start < data.count
        var adler = Adler32()
        adler.update(data)
        stream.appendBigEndian(adler.value)
        return stream
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
