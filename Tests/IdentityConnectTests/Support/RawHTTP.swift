import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Talks to a server with raw bytes over a TCP socket, for requests no HTTP client would send
/// (dot segments as typed, oversized or slow heads, unknown methods). The blocking socket calls
/// run on a thread of their own, never on the test process's cooperative threads.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Sends `request` in one piece (or in `chunks` with `pause` between them) and returns
    /// everything the server answers until it closes or `timeout` passes.
    static func exchange(port: Int, _ request: String, chunks: [String]? = nil, pause: Duration = .zero,
                         timeout: Duration = .seconds(15)) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try blockingExchange(port: port, chunks ?? [request], pause: pause, timeout: timeout) })
            }.start()
        }
    }

    /// Opens `count` connections and keeps them open (idle) until `body` returns.
    static func holdingConnections<T>(port: Int, count: Int, sendFirstByte: Bool,
                                      _ body: () async throws -> T) async throws -> T {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<count {
            let fd = try connect(port: port)
            sockets.append(fd)
            if sendFirstByte { _ = "G".withCString { send(fd, $0, 1, Int32(MSG_NOSIGNAL)) } }
        }
        return try await body()
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw Failure(description: "connect: \(errno)") }
        return fd
    }

    private static func blockingExchange(port: Int, _ chunks: [String], pause: Duration, timeout: Duration) throws -> String {
        let fd = try connect(port: port)
        defer { close(fd) }
        var seconds = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        for (index, chunk) in chunks.enumerated() {
            if index > 0 { Thread.sleep(forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18) }
            let bytes = Array(chunk.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { break }
                sent += count
            }
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
