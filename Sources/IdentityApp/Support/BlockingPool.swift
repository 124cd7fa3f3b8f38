import IdentityCore
import NIOPosix

/// Runs blocking work on a NIO thread pool, never on an event loop or the cooperative pool.
public struct BlockingPool: BlockingWorkRunner {
    let pool: NIOThreadPool

    public init(pool: NIOThreadPool = .singleton) { self.pool = pool }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }
}
