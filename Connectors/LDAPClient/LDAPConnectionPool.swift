import Foundation
import IdentityCore

#if canImport(Glibc)
import Glibc
#endif

/// A pool of connections to one directory, one per auth service. Work runs on the blocking-work
/// runner (never on an event loop or the cooperative pool) with a connection nobody else uses;
/// idle connections are kept for the next caller. A pooled connection the server has since
/// dropped (restart, idle timeout) is replaced once transparently; a connection that failed in
/// any other connection-level way is discarded.
public final class LDAPConnectionPool: @unchecked Sendable {
    public let server: LDAPServer
    private let blocking: any BlockingWorkRunner
    /// Calls in flight on the blocking runner: twice the idle connections kept (`poolSize`).
    /// A directory that hangs holds at most this many threads until its timeouts fire.
    public let inFlight: ConcurrencyLimit
    private let lock = NSLock()
    private var idle: [LDAPHandle] = []

    public init(server: LDAPServer, blocking: any BlockingWorkRunner) {
        self.server = server
        self.blocking = blocking
        self.inFlight = ConcurrencyLimit(server.maxIdle * 2)
        Self.ignoreSIGPIPE
    }

    /// libldap writes to its sockets without MSG_NOSIGNAL; a write to a connection the server
    /// closed must fail with EPIPE rather than kill the process.
    private static let ignoreSIGPIPE: Void = {
        #if canImport(Glibc)
        signal(SIGPIPE, SIG_IGN)
        #endif
    }()

    /// Runs `body` with a connection of its own on the blocking-work runner.
    ///
    /// - Throws: ``LDAPError`` from libldap (``LDAPError/isConnectionProblem`` when the directory
    ///   is down or slow), or whatever `body` throws.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (LDAPHandle) throws -> T) async throws -> T {
        try await inFlight.run { try await blocking.run { [self] in
            if let pooled = checkout() {
                do {
                    return try use(pooled, body)
                } catch let error as LDAPError where error.isClosedConnection {
                    // The server dropped the pooled connection meanwhile: try once with a fresh one.
                }
            }
            return try use(try LDAPHandle(server), body)
        } }
    }

    /// Drops every idle connection (after a configuration reload or in tests).
    public func drain() {
        lock.lock()
        idle.removeAll()
        lock.unlock()
    }

    public var idleCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return idle.count
    }

    private func use<T>(_ handle: LDAPHandle, _ body: (LDAPHandle) throws -> T) throws -> T {
        do {
            let result = try body(handle)
            checkin(handle)
            return result
        } catch let error as LDAPError where error.isConnectionProblem {
            throw error
        } catch {
            checkin(handle)
            throw error
        }
    }

    private func checkout() -> LDAPHandle? {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast()
    }

    private func checkin(_ handle: LDAPHandle) {
        lock.lock()
        defer { lock.unlock() }
        if idle.count < server.maxIdle { idle.append(handle) }
    }
}
