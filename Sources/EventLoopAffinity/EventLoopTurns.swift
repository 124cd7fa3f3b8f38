import NIOCore
import NIOPosix
import Synchronization

/// Under load, lets a request wait one turn in its event loop's queue before it is handled, so
/// that the loop reads the other waiting requests first (only under `IDCONNECT_EXECUTOR=loops`;
/// `adaptive` interleaves under load by running jobs isolated instead).
///
/// With `EventLoopGlobalExecutor` a request runs from its first byte to its answer in one go. One
/// at a time that is the fastest there is. Under load, SwiftNIO's own takeover, whose many queue
/// trips interleave the requests of all connections stage by stage, measured faster; one turn at
/// the start of a request, taken only when other requests are in flight, brings some of that
/// interleaving back.
///
/// One instance counts the requests of one server (`buildRouter` makes it). Off an event loop, or
/// under another executor, it only counts and runs `body`.
public final class EventLoopTurns: Sendable {
    /// Requests in flight (all loops).
    private let inFlight = Atomic<Int>(0)

    public init() {}

    /// Runs one request's `body`, after one turn through the event loop's queue when other
    /// requests are in flight.
    public func request<T>(_ body: () async throws -> T) async throws -> T {
        let others = inFlight.add(1, ordering: .relaxed).oldValue
        defer { inFlight.subtract(1, ordering: .relaxed) }
        if others > 0, EventLoopGlobalExecutor.isolation == .never, let loop = MultiThreadedEventLoopGroup.currentEventLoop {
            await withUnsafeContinuation { (turn: UnsafeContinuation<Void, Never>) in
                loop.execute { turn.resume() }
            }
        }
        return try await body()
    }

    /// How many requests are inside `request` now.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }
}
