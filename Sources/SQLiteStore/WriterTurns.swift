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
/// thread right after its own, then resumes the caller with the result (after the turn's scope
/// has closed: see below). A holder runs at most
/// ``batch`` jobs for others and then hands the turn to the next waiter, so one loop's requests
/// are not held long behind the other's.
///
/// Jobs must be short and synchronous, and must not depend on which task runs them (they may run
/// on the holder's): the writer connection's statements, nothing else. A caller's event loop must
/// outlive its call: a turn passed to a caller whose loop has shut down is never taken (NIO drops
/// work sent to a closed loop) and every later caller would wait. The broker's loops are NIO's
/// shared group, which lives as long as the process.
///
/// A turn's jobs run in one scope (for the store: one write transaction, ``TurnTransaction``), so
/// the writes of a busy moment share one commit: the pages they have in common (index roots,
/// the tables' last pages) go to the WAL once instead of once per write. No caller gets its
/// result before the scope has closed (the commit), and when closing fails every job of the turn
/// fails with that error, unless it had failed on its own.
final class WriterTurns<Context>: Sendable {
    /// How many queued jobs a holder runs for others before it hands its turn over.
    static var batch: Int { 8 }

    /// Runs `body` with the context a turn's jobs share, then closes it; throws when it cannot be
    /// opened or closed. It calls `body` once unless it throws before.
    typealias Scope = @Sendable (_ body: (Context) -> Void) throws -> Void

    /// Resumes a caller whose job has run: with its own result, or with the scope's failure when
    /// closing the scope failed and the job itself had not.
    private typealias Delivery = @Sendable (_ scopeFailure: (any Error)?) -> Void

    private struct State {
        var taken = false
        var waiting: [Waiter] = []
    }

    /// A queued job: either run for its caller by the holder, or given the turn to run itself.
    private struct Waiter: Sendable {
        /// Runs the job on this thread, in the holder's scope; the delivery resumes the caller.
        let runHere: @Sendable (Context) -> Delivery
        /// Resumes the caller with `error`, its job not run (the scope could not be opened).
        let fail: @Sendable (any Error) -> Void
        /// Resumes the caller, who then holds the turn and runs the job itself.
        let passTurn: @Sendable () -> Void
    }

    private enum Outcome<T: Sendable>: Sendable {
        case ran(Result<T, any Error>)
        case yourTurn
    }

    private let state = Mutex(State())
    private let batch: Int
    private let scope: Scope

    /// `batch` is ``batch`` but in tests.
    init(batch: Int = WriterTurns.batch, scope: @escaping Scope) {
        self.batch = batch
        self.scope = scope
    }

    /// How many jobs are queued for the holder (for tests).
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Runs `job` now on this thread if the writer is free; otherwise suspends until the holder
    /// has run it (or passed the turn on, and it runs here). Errors `job` throws reach the caller.
    func run<T: Sendable>(_ job: @escaping @Sendable (Context) throws -> T) async throws -> T {
        if state.withLock({ Self.take(&$0) }) { return try holdingTurn(job) }
        // Comes back to the caller's own loop when another thread resumes it.
        return try await EventLoopAffinity.returning {
            let outcome: Outcome<T> = await withCheckedContinuation { continuation in
                let waiter = Waiter(
                    runHere: { context in
                        let result = Result { try job(context) }
                        return { scopeFailure in continuation.resume(returning: .ran(Self.outcome(result, scopeFailure))) }
                    },
                    fail: { continuation.resume(returning: .ran(.failure($0))) },
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

    /// `job` on this thread, by the holder of the turn, with the queued jobs after it in the same
    /// scope; then the holder serves the queue or passes the turn on (``finishTurn(served:)``).
    private func holdingTurn<T: Sendable>(_ job: (Context) throws -> T) throws -> T {
        var served = 0
        var own: Result<T, any Error>?
        let failure = round(served: &served) { context in own = Result { try job(context) } }
        defer { finishTurn(served: served) }
        guard let own else { throw failure ?? ScopeSkipped() }
        return try Self.outcome(own, failure).get()
    }

    /// One scope: `first`, then queued jobs while fewer than ``batch`` have been served, each
    /// caller resumed once the scope has closed. Returns the scope's failure.
    private func round(served: inout Int, first: (Context) -> Void) -> (any Error)? {
        var deliveries: [Delivery] = []
        var failure: (any Error)?
        do {
            try scope { context in
                first(context)
                while served < batch, let next = state.withLock({ $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }) {
                    deliveries.append(next.runHere(context))
                    served += 1
                }
            }
        } catch {
            failure = error
        }
        for deliver in deliveries { deliver(failure) }
        return failure
    }

    private static func take(_ state: inout State) -> Bool {
        if state.taken { return false }
        state.taken = true
        return true
    }

    /// A job's own failure stands; a job that succeeded in a scope that failed to close failed.
    private static func outcome<T>(_ result: Result<T, any Error>, _ scopeFailure: (any Error)?) -> Result<T, any Error> {
        if case .success = result, let scopeFailure { return .failure(scopeFailure) }
        return result
    }

    /// After the holder's own round: runs the jobs queued since in further rounds (at most
    /// ``batch`` in all), then frees the turn or passes it to the next waiter.
    private func finishTurn(served alreadyServed: Int) {
        var served = alreadyServed
        while true {
            let next = state.withLock { state -> Waiter? in
                if state.waiting.isEmpty {
                    state.taken = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            guard let next else { return }
            if served >= batch {
                next.passTurn()
                return
            }
            served += 1
            var delivery: Delivery?
            let failure = round(served: &served) { context in delivery = next.runHere(context) }
            if let delivery { delivery(failure) } else { next.fail(failure ?? ScopeSkipped()) }
        }
    }
}

/// The scope returned without running the turn's jobs and without an error (a broken ``WriterTurns/Scope``).
struct ScopeSkipped: Error {}

extension WriterTurns where Context == Void {
    /// Turns whose jobs share nothing (tests of the turns alone).
    convenience init(batch: Int = WriterTurns.batch) {
        self.init(batch: batch, scope: { body in body(()) })
    }
}
