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
    func stalledReader() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let writer = LogWriter(destination: FileDescriptorDestination(fileDescriptor: ends[1], name: "pipe"), limit: 256 << 10)
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
        // The reader comes back: everything queued arrives, then the notice about the loss.
        #expect(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        // Polls without blocking a cooperative thread (the suite's other tests share them).
        func drain(until done: ([UInt8]) -> Bool) async throws {
            let deadline = Date().addingTimeInterval(10)
            while !done(received), Date() < deadline {
                let count = read(ends[0], &buffer, buffer.count)
                if count > 0 { received.append(contentsOf: buffer[0..<count]) } else { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        let notice = #"{"level":"warning","logger":"idconnect","msg":"log lines dropped: pipe did not keep up","dropped":"#
        /// Numbered lines received, and the losses the notices reported.
        func accounted(_ bytes: [UInt8]) -> (numbers: [Int], dropped: [Int]) {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            return (lines.compactMap { Int($0.split(separator: " ").first ?? "") },
                    lines.filter { $0.hasPrefix(notice) }.compactMap { Int($0.dropFirst(notice.count).dropLast()) })
        }
        try await drain { accounted($0).numbers.count + accounted($0).dropped.reduce(0, +) >= 2_000 }
        writer.append(Array("last\n".utf8))
        try await drain { $0.suffix(5) == Array("last\n".utf8) }
        close(ends[1])
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        #expect(lines.first?.hasPrefix("0 ") == true)
        // Where the gaps fall depends on when the writer thread ran (it takes the whole backlog
        // at once, freeing room mid-loop), so: increasing, whole lines, and every line accounted
        // for — written, or counted in a notice.
        let (numbers, reportedDropped) = accounted(received)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "lines kept in order")
        #expect(lines.filter { $0.first?.isNumber == true }.allSatisfy { $0.utf8.count == 1_000 }, "no line torn")
        // The pipe, one batch in write(2) and a full backlog hold under 600 of the 2,000 lines.
        #expect(reportedDropped.reduce(0, +) > 1_000)
        #expect(numbers.count + reportedDropped.reduce(0, +) == 2_000, "every line written or counted as dropped")
        #expect(lines.last == "last")
    }
}
