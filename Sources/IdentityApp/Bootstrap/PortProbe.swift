import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds out, before anything is created, whether `serve` can listen where it was asked to: a port
/// another process holds is a one-line error before storage, the vault key or a signing key is
/// made (docs/operations.md, "Starting"). The probe binds a socket as the server will
/// (`SO_REUSEADDR`, as SwiftNIO sets it) and closes it at once; the server's own bind still
/// reports a port taken in between.
enum PortProbe {
    /// Throws a `BootstrapError` naming the address when `host:port` cannot be bound. Port 0 (any
    /// free port) is never probed.
    static func check(host: String, port: Int, what: String = "--port") throws {
        guard port != 0 else { return }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(port), &hints, &found)
        guard lookup == 0, let first = found else {
            throw BootstrapError("cannot listen on \(host):\(port): \(String(cString: gai_strerror(lookup)))")
        }
        defer { freeaddrinfo(first) }
        let failure = bindFailure(first.pointee)
        guard let failure else { return }
        if failure == EADDRINUSE {
            throw BootstrapError("\(host):\(port) is already in use (another idconnect serve?); stop that process or choose another port with \(what)")
        }
        throw BootstrapError("cannot listen on \(host):\(port): \(String(cString: strerror(failure)))")
    }

    /// The `errno` of binding a socket to `address`, or nil when the bind worked.
    private static func bindFailure(_ address: addrinfo) -> Int32? {
        let socket = Glibc.socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard socket >= 0 else { return errno }
        defer { close(socket) }
        var one: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        return bind(socket, address.ai_addr, address.ai_addrlen) == 0 ? nil : errno
    }
}
