import NIOCore
import NIOPosix

/// Awaits work that finishes on another thread and continues on the event loop that awaited it.
///
/// Under `idconnect serve` SwiftNIO's event loops are Swift's global executor, and a request's
/// task runs on the loop that owns its connection. Work that completes elsewhere — a SQLite
/// write on GRDB's writer queue, an HTTP call whose connection lives on the other loop — resumed
/// the task on whichever loop came next; its answer then hopped back to the connection's loop
/// to be written: two cross-thread wake-ups where none is needed. Inside `returning` the task
/// prefers the loop it started on (`EventLoopTaskExecutor`), so it comes back there.
///
/// Only around such waits, not around whole requests: while a task has an executor preference,
/// every executor switch of it looks the preference up under the task's status lock, which cost
/// validation and introspection (many switches, no cross-thread wait) about a quarter of their CPU.
/// Off an event loop (Swift's own pool, `IDCONNECT_EXECUTOR=swift`, tests) it only runs `body`.
public enum EventLoopAffinity {
    /// Runs `body`; its awaits resume on `loop` (by default the event loop running the caller,
    /// if any), and so does the caller afterwards.
    @concurrent public static func returning<T>(on loop: (any EventLoop)? = MultiThreadedEventLoopGroup.currentEventLoop,
                                                _ body: @concurrent () async throws -> T) async throws -> T {
        guard let loop else { return try await body() }
        return try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) { try await body() }
    }
}
