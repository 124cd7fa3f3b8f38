import Foundation
import IdentityApp
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A log reader that stops reading must not stall the broker: lines queue up to a limit, then
/// are dropped and counted, and the loss is reported once the reader is back.
@Suite("Log writer")
struct LogWriterTests {
    @Test("a stalled pipe never blocks logging; dropped lines are counted and reported; everything else arrives in order")
    func stalledReader() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let writer = LogWriter(fileDescriptor: ends[1], limit: 256 << 10)
        let line = Array(repeating: UInt8(ascii: "x"), count: 1023) + [0x0A]
        // Nobody reads: the pipe (64 KiB) fills, the writer thread blocks in write(2), the queue
        // fills to its limit, and the rest is dropped — all without blocking this thread.
        let started = Date()
        for index in 0..<2_000 {
            var numbered = Array("\(index) ".utf8) + line
            numbered.removeSubrange(1000..<numbered.count - 1)
            writer.append(numbered)
        }
        #expect(Date().timeIntervalSince(started) < 2, "appending blocked")
        #expect(writer.droppedCount > 1_000)
        // The reader comes back: everything queued arrives, then the notice about the loss.
        #expect(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func drain(until done: ([UInt8]) -> Bool) {
            let deadline = Date().addingTimeInterval(10)
            while !done(received), Date() < deadline {
                let count = read(ends[0], &buffer, buffer.count)
                if count > 0 { received.append(contentsOf: buffer[0..<count]) } else { usleep(5_000) }
            }
        }
        drain { String(decoding: $0, as: UTF8.self).contains("log lines dropped") }
        writer.append(Array("last\n".utf8))
        drain { $0.suffix(5) == Array("last\n".utf8) }
        close(ends[1])
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        #expect(lines.first?.hasPrefix("0 ") == true)
        let numbers = lines.compactMap { Int($0.split(separator: " ").first ?? "") }
        #expect(numbers == Array(0..<numbers.count), "lines kept in order, none torn")
        #expect(lines.contains { $0.contains(#""msg":"log lines dropped: stderr did not keep up","dropped":"#) })
        #expect(lines.last == "last")
    }
}
