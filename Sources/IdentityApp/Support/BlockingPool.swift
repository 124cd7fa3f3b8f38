import IdentityCore
import NIOPosix

/// Runs blocking work on a NIO thread pool, never on an event loop or the cooperative pool.
public struct BlockingPool: BlockingWorkRunner {
    let pool: NIOThreadPool

    public init(pool: NIOThreadPool = .singleton) { self.pool = pool }

    /// Threads for calls that wait on the network (libldap binds and searches). Sized for waiting,
    /// not for CPU: each directory's connection pool admits only its own share (`poolSize` × 2).
    public static let network: BlockingPool = {
        let pool = NIOThreadPool(numberOfThreads: 64)
        pool.start()
        return BlockingPool(pool: pool)
    }()

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }
}
