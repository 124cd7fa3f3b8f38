import EventLoopAffinity
import Synchronization

/// Takes the short writes of both event loops on the writer connection in turn, without parking
/// a loop's thread while the other loop writes.
///
/// A short write runs on its caller's thread (``SQLiteStore/write(_:)``). GRDB's writer queue
/// serializes those of the two loops with `DispatchQueue.sync`, and a loop that found the writer
/// taken slept in a futex until it was free: under the benchmark's code exchanges more than half
/// of them did (two writes and a read on the writer each), and with ES256 a third of the two
/// cores sat idle. Here a job that finds the writer taken is queued, its caller suspends (its
/// loop goes on with other requests), and whoever holds the turn runs the queued job on its own
/// thread right after its own, then resumes the caller with the result. A holder runs at most
/// ``batch`` jobs for others and then hands the turn to the next waiter, so one loop's requests
/// are not held long behind the other's.
///
/// Jobs must be short and synchronous, and must not depend on which task runs them (they may run
/// on the holder's): the writer connection's statements, nothing else. A caller's event loop must
/// outlive its call: a turn passed to a caller whose loop has shut down is never taken (NIO drops
/// work sent to a closed loop) and every later caller would wait. The broker's loops are NIO's
/// shared group, which lives as long as the process.
final class WriterTurns: Sendable {
    /// How many queued jobs a holder runs for others before it hands its turn over.
    static let batch = 8

    private struct State {
        var taken = false
        var waiting: [Waiter] = []
    }

    /// A queued job: either run for its caller by the holder, or given the turn to run itself.
    private struct Waiter: Sendable {
        /// Runs the job on this thread and resumes its caller with the result.
        let runHere: @Sendable () -> Void
        /// Resumes the caller, who then holds the turn and runs the job itself.
        let passTurn: @Sendable () -> Void
    }

    private enum Outcome<T: Sendable>: Sendable {
        case ran(Result<T, any Error>)
        case yourTurn
    }

    private let state = Mutex(State())
    private let batch: Int

    /// `batch` is ``batch`` but in tests.
    init(batch: Int = WriterTurns.batch) {
        self.batch = batch
    }

    /// How many jobs are queued for the holder (for tests).
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Runs `job` now on this thread if the writer is free; otherwise suspends until the holder
    /// has run it (or passed the turn on, and it runs here). Errors `job` throws reach the caller.
    func run<T: Sendable>(_ job: @escaping @Sendable () throws -> T) async throws -> T {
        if state.withLock({ Self.take(&$0) }) { return try holdingTurn(job) }
        // Comes back to the caller's own loop when another thread resumes it.
        return try await EventLoopAffinity.returning {
            let outcome: Outcome<T> = await withCheckedContinuation { continuation in
                let waiter = Waiter(
                    runHere: { continuation.resume(returning: .ran(Result { try job() })) },
                    passTurn: { continuation.resume(returning: .yourTurn) })
                let free = state.withLock { state -> Bool in
                    if Self.take(&state) { return true }
                    state.waiting.append(waiter)
                    return false
                }
                // Freed between the first look and now.
                if free { continuation.resume(returning: .yourTurn) }
            }
            switch outcome {
            case .ran(let result):
                return try result.get()
            case .yourTurn:
                return try holdingTurn(job)
            }
        }
    }

    /// `job` on this thread, by the holder of the turn, which then serves the queue.
    private func holdingTurn<T>(_ job: () throws -> T) rethrows -> T {
        defer { finishTurn() }
        return try job()
    }

    private static func take(_ state: inout State) -> Bool {
        if state.taken { return false }
        state.taken = true
        return true
    }

    /// After the holder's own job: runs the queued jobs (at most ``batch``), then frees the turn
    /// or passes it to the next waiter.
    private func finishTurn() {
        var served = 0
        while true {
            let next = state.withLock { state -> Waiter? in
                if state.waiting.isEmpty {
                    state.taken = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            guard let next else { return }
            if served == batch {
                next.passTurn()
                return
            }
            next.runHere()
            served += 1
        }
    }
}
