import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `idconnect healthcheck`: asks a running broker's `/healthz` and exits 0 when it answers 200 —
/// the container's `HEALTHCHECK`, which has no curl (docs/operations.md, "Docker"). Plain HTTP
/// only: with `server.tls`, point it at the admin listener (`server.adminPort`).
struct HealthcheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck", abstract: "Exit 0 when the broker at --url answers 200 (for container health checks).")

    @Option(help: "The health URL (plain http).") var url = "http://127.0.0.1:8080/healthz"
    @Option(help: "Seconds to wait for the answer.") var timeout = 3

    func run() throws {
        guard let parsed = URLComponents(string: url), parsed.scheme == "http", let host = parsed.host, !host.isEmpty else {
            throw ValidationError("--url must be an http:// URL, got '\(url)'")
        }
        let path = parsed.percentEncodedPath.isEmpty ? "/" : parsed.percentEncodedPath
        let status = try Self.status(host: host, port: parsed.port ?? 80, path: path, timeout: max(1, timeout))
        guard status == 200 else {
            var standardError = FileHandle.standardError
            print("idconnect healthcheck: \(url) answered \(status)", to: &standardError)
            throw ExitCode(1)
        }
    }

    /// The status code of `GET path` at `host:port`, on one connection that is closed afterwards.
    static func status(host: String, port: Int, path: String, timeout: Int) throws -> Int {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { throw failure("cannot resolve \(host)") }
        defer { freeaddrinfo(address) }
        let socket = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard socket >= 0 else { throw failure("no socket") }
        defer { close(socket) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            throw failure("cannot connect to \(host):\(port): \(String(cString: strerror(errno)))")
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw failure("cannot send the request") }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while answer.count < 512, !answer.contains(0x0A) {
            let read = recv(socket, &buffer, buffer.count, 0)
            guard read > 0 else { break }
            answer += buffer[0..<read]
        }
        // "HTTP/1.1 200 OK"
        let statusLine = String(decoding: answer.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw failure("no HTTP answer from \(host):\(port)")
        }
        return status
    }

    private static func failure(_ message: String) -> Error {
        var standardError = FileHandle.standardError
        print("idconnect healthcheck: \(message)", to: &standardError)
        return ExitCode(1)
    }
}
