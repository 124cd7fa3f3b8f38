import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where a `LogWriter` puts its bytes; called from the writer's own thread only.
public protocol LogDestination: Sendable {
    /// Writes every byte, or gives up silently (a log must never stop the broker).
    func write(_ bytes: [UInt8])
    /// Names the destination in the "lines dropped" notice.
    var name: String { get }
}

/// An open file descriptor (stderr).
public struct FileDescriptorDestination: LogDestination {
    let fileDescriptor: Int32
    public let name: String

    public init(fileDescriptor: Int32, name: String) {
        self.fileDescriptor = fileDescriptor
        self.name = name
    }

    public func write(_ bytes: [UInt8]) { Self.writeAll(bytes, to: fileDescriptor) }

    /// Writes until done, retrying interrupted writes; returns the bytes written.
    @discardableResult
    static func writeAll(_ bytes: [UInt8], to fileDescriptor: Int32) -> Int {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { break }
                offset += written
            }
            return offset
        }
    }
}

/// Writes log lines to a destination from a thread of its own, so a slow or stalled reader of
/// stderr (a full pipe, a stuck container log driver) never blocks a request: with the event loops
/// as Swift's executor, a blocking `write(2)` in a request would stall every connection on that
/// loop. Lines wait in a buffer of at most `limit` bytes; past that they are dropped and counted,
/// and a line saying how many were lost follows once the reader keeps up again.
public final class LogWriter: Sendable {
    /// stderr, 8 MiB of backlog.
    public static let standardError = LogWriter(destination: FileDescriptorDestination(fileDescriptor: 2, name: "stderr"),
                                                limit: 8 << 20)

    private struct State {
        var pending: [UInt8] = []
        var dropped = 0
        var writing = false
    }

    private let destination: any LogDestination
    private let limit: Int
    private let state = Mutex(State())
    private let wake = NSCondition()
    private let idle = NSCondition()

    public init(destination: any LogDestination, limit: Int) {
        self.destination = destination
        self.limit = limit
        let thread = Thread { [self] in run() }
        thread.name = "idconnect-log"
        thread.start()
    }

    /// Queues one line (with its newline); never blocks on the file descriptor.
    public func append(_ line: [UInt8]) {
        let queued = state.withLock { state -> Bool in
            guard state.pending.count + line.count <= limit else {
                state.dropped += 1
                return false
            }
            state.pending.append(contentsOf: line)
            return true
        }
        if queued {
            wake.lock()
            wake.signal()
            wake.unlock()
        }
    }

    /// Waits up to `timeout` until everything queued has been written (at exit, in tests).
    @discardableResult
    public func flush(timeout: TimeInterval = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        idle.lock()
        defer { idle.unlock() }
        while state.withLock({ !$0.pending.isEmpty || $0.writing }) {
            wake.lock()
            wake.signal()
            wake.unlock()
            if !idle.wait(until: min(deadline, Date().addingTimeInterval(0.05))), Date() >= deadline { return false }
        }
        return true
    }

    private func run() {
        while true {
            wake.lock()
            while state.withLock({ $0.pending.isEmpty && $0.dropped == 0 }) { wake.wait() }
            wake.unlock()
            var (batch, dropped) = state.withLock { state -> ([UInt8], Int) in
                state.writing = true
                defer { state.pending = []; state.dropped = 0 }
                return (state.pending, state.dropped)
            }
            if dropped > 0 {
                batch += Array(#"{"level":"warning","logger":"idconnect","msg":"log lines dropped: "#.utf8)
                batch += Array("\(destination.name) did not keep up\",\"dropped\":".utf8)
                batch += Array("\(dropped)}\n".utf8)
            }
            destination.write(batch)
            state.withLock { $0.writing = false }
            idle.lock()
            idle.broadcast()
            idle.unlock()
            dropped = 0
        }
    }
}
