import IdentityCore
import NIOPosix
import Synchronization

/// Runs blocking work on a NIO thread pool, never on an event loop or the cooperative pool.
///
/// The broker's threads, and why each pool exists (docs/operations.md, "Threads"):
/// - SwiftNIO's event loops, one per core: every connection, and under `serve` Swift's jobs too;
/// - SwiftNIO's singleton blocking pool, one thread per core (``init(pool:)``'s default): CPU-bound
///   blocking work — password hashes, RSA key generation, xmlsec's signature checks;
/// - ``network``: libldap binds and searches, which wait on a directory server; started on its
///   first call, so a broker without an LDAP or Active Directory auth service has none of them;
/// - Dispatch's pool, used by GRDB for SQLite's long writes, purges and checkpoints, and by the
///   log writer's thread.
public struct BlockingPool: BlockingWorkRunner {
    private let source: Source

    private enum Source: Sendable {
        case pool(NIOThreadPool)
        case lazy(LazyThreadPool)
    }

    public init(pool: NIOThreadPool = .singleton) { source = .pool(pool) }

    private init(lazy: LazyThreadPool) { source = .lazy(lazy) }

    /// Threads for calls that wait on the network (libldap binds and searches). Sized for waiting,
    /// not for CPU: each directory's connection pool admits only its own share (`poolSize` × 2).
    /// None exist until the first call.
    public static let network = BlockingPool(lazy: LazyThreadPool(threads: 64))

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        switch source {
        case .pool(let pool): try await pool.runIfActive(work)
        case .lazy(let lazy): try await lazy.pool.runIfActive(work)
        }
    }

    /// Whether ``network``'s threads were started (tests: a broker without directories has none).
    public static var networkStarted: Bool {
        if case .lazy(let lazy) = network.source { return lazy.started }
        return true
    }
}

/// A thread pool made and started when first used, then kept for the process's life.
final class LazyThreadPool: Sendable {
    private let threads: Int
    private let made = Mutex<NIOThreadPool?>(nil)

    init(threads: Int) { self.threads = threads }

    var pool: NIOThreadPool {
        made.withLock { made in
            if let made { return made }
            let pool = NIOThreadPool(numberOfThreads: threads)
            pool.start()
            made = pool
            return pool
        }
    }

    var started: Bool { made.withLock { $0 != nil } }
}
