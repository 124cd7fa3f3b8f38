#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the `CRLF CRLF` that ends an HTTP request head in a stream of reads, the end possibly
/// split across reads. Runs on every read of every request (`RequestHeadGuard`): it keeps the last
/// three bytes seen in an integer and finds candidates with `memchr`-speed searches for `LF`,
/// instead of sliding an array window byte by byte.
struct HeadEndScanner {
    /// The last (up to) three bytes seen, the newest in the low byte; `seen` says how many count.
    private var recent: UInt32 = 0
    private var seen = 0

    /// Forgets what came before (a new head begins).
    mutating func reset() {
        recent = 0
        seen = 0
    }

    /// The number of bytes of `bytes` up to and including the `CRLF CRLF` ending the head, if it
    /// ends in them; otherwise remembers their last bytes for the next call.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard count > 0 else { return nil }
        // The first three bytes may complete an end begun in an earlier read.
        var window = recent
        var known = seen
        for index in 0..<min(3, count) {
            window = (window << 8) | UInt32(bytes[index])
            known += 1
            if known >= 4, window == 0x0D0A_0D0A {
                reset()
                return index + 1
            }
        }
        // From the fourth byte on, every candidate lies wholly inside this read.
        if count > 3, let base = bytes.baseAddress {
            var start = 3
            while start < count, let found = memchr(base + start, 0x0A, count - start) {
                let index = base.distance(to: UnsafeRawPointer(found))
                if bytes[index - 1] == 0x0D, bytes[index - 2] == 0x0A, bytes[index - 3] == 0x0D {
                    reset()
                    return index + 1
                }
                start = index + 1
            }
        }
        // Remember the last three bytes (fewer when fewer were ever seen).
        if count >= 3 {
            recent = UInt32(bytes[count - 3]) << 16 | UInt32(bytes[count - 2]) << 8 | UInt32(bytes[count - 1])
            seen = 3
        } else {
            recent = window & 0x00FF_FFFF
            seen = min(3, known)
        }
        return nil
    }
}
