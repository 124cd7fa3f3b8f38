import Synchronization

/// How many HTTP requests the server has read the head of and not yet finished answering, across
/// all connections and event loops.
///
/// The adaptive executor (`EventLoopGlobalExecutor`, `IDCONNECT_EXECUTOR=adaptive`) reads it for
/// every job it runs: with one request in flight nothing is gained by interleaving, so the request
/// runs straight through; with several, jobs run as SwiftNIO's takeover runs them. The server's
/// connection pipeline counts (`RequestBoundaryObserver`); tests give it a counter of their own.
public final class RequestsInFlight: Sendable {
    /// The counter the server counts in and the adaptive executor reads.
    public static let shared = RequestsInFlight()

    private let count = Atomic<Int>(0)

    public init() {}

    /// A request head was read.
    public func started() {
        count.add(1, ordering: .relaxed)
    }

    /// `requests` requests were answered in full, or their connection closed before that.
    public func finished(_ requests: Int = 1) {
        guard requests > 0 else { return }
        count.subtract(requests, ordering: .relaxed)
    }

    /// Requests in flight now.
    public var current: Int { count.load(ordering: .relaxed) }

    /// More than one request is in flight: the point from which interleaving them pays.
    public var several: Bool { count.load(ordering: .relaxed) > 1 }
}
