import Dispatch
import EventLoopAffinity
import Foundation
import NIOPosix
@testable import SQLiteStore
import Synchronization
import Testing

/// The event loops' turns on SQLite's writer connection: one job at a time, a job that finds the
/// turn taken is run by the holder (its caller suspends instead of blocking its thread), each
/// caller gets its own result or error, and a holder passes the turn on after a batch.
// A lost wakeup or a turn never freed hangs a caller: the time limit turns that into a failure.
// Generous, because in a full run these tests take 20–40 s waiting for the cooperative pool.
@Suite("Writer turns", .timeLimit(.minutes(3)))
struct WriterTurnsTests {
    /// The thread a job ran on.
    final class ThreadRecord: Sendable {
        private let value = Mutex<pthread_t?>(nil)
        func set() { value.withLock { $0 = pthread_self() } }
        var thread: pthread_t? { value.withLock { $0 } }
    }

    /// A holder on an event loop of its own whose job runs until `release` is signalled, so that
    /// the jobs started meanwhile find the turn taken.
    /// With `failing`, the holder's own job throws ``HolderFailed`` once released.
    final class BlockedHolder<Context>: Sendable {
        struct HolderFailed: Error {}
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let release = DispatchSemaphore(value: 0)
        let recorded: ThreadRecord
        let failing: Bool
        let task: Task<Int, any Error>

        /// `work` runs in the holder's job first (with the turn's context), before it blocks.
        init(_ turns: WriterTurns<Context>, failing: Bool = false,
             work: @escaping @Sendable (Context) throws -> Void = { _ in }) async throws {
            self.failing = failing
            let loop = group.next()
            let entered = Atomic<Bool>(false)
            let release = self.release
            let thread = ThreadRecord()
            self.recorded = thread
            task = Task {
                try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
                    try await turns.run { context in
                        try work(context)
                        thread.set()
                        entered.store(true, ordering: .releasing)
                        // A safety net for a test that fails before `finish`, not a pace: in a full
                        // run queueing the callers can take tens of seconds, and a holder that let go
                        // early would run them before the test means it to.
                        _ = release.wait(timeout: .now() + 150)
                        if failing { throw HolderFailed() }
                        return -1
                    }
                }
            }
            while !entered.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(2)) }
        }

        var holderThread: pthread_t? { recorded.thread }

        func finish() async throws {
            release.signal()
            if failing {
                await #expect(throws: HolderFailed.self) { try await self.task.value }
            } else {
                #expect(try await task.value == -1)
            }
            try await group.shutdownGracefully()
        }
    }

    /// Starts `job` as a caller of `turns` and returns once it is queued behind the holder.
    static func queue<Context>(_ turns: WriterTurns<Context>, _ job: @escaping @Sendable (Context) throws -> Int) async throws -> Task<Int, any Error> {
        let before = turns.waiting
        let task = Task { try await turns.run(job) }
        while turns.waiting == before { try await Task.sleep(for: .milliseconds(2)) }
        return task
    }

    @Test("a job that finds the turn taken is run by the holder after its own, and its caller gets the result")
    func holderRunsQueuedJobs() async throws {
        let turns = WriterTurns<Void>()
        let holder = try await BlockedHolder(turns)
        let ranOn = Mutex<pthread_t?>(nil)
        let queued = try await Self.queue(turns) { _ in ranOn.withLock { $0 = pthread_self() }; return 42 }
        #expect(turns.waiting == 1)
        try await holder.finish()
        #expect(try await queued.value == 42)
        let ran = try #require(ranOn.withLock { $0 }), holderThread = try #require(holder.holderThread)
        #expect(pthread_equal(ran, holderThread) != 0)
        #expect(turns.waiting == 0)
    }

    @Test("each queued caller gets its own result or its own error")
    func resultsAndErrorsReachTheirCallers() async throws {
        struct Refused: Error, Equatable { let index: Int }
        let turns = WriterTurns<Void>()
        let holder = try await BlockedHolder(turns)
        var tasks: [Task<Int, any Error>] = []
        for index in 0..<6 {
            tasks.append(try await Self.queue(turns) { _ in
                if index % 2 == 1 { throw Refused(index: index) }
                return index * 10
            })
        }
        try await holder.finish()
        for (index, task) in tasks.enumerated() {
            if index % 2 == 1 {
                await #expect(throws: Refused(index: index)) { try await task.value }
            } else {
                #expect(try await task.value == index * 10)
            }
        }
    }

    @Test("a holder runs at most a batch of jobs for others, then passes the turn to the next caller")
    func holderPassesTheTurnAfterABatch() async throws {
        let turns = WriterTurns<Void>(batch: 2)
        let holder = try await BlockedHolder(turns)
        let threads = Mutex<[Int: pthread_t]>([:])
        var tasks: [Task<Int, any Error>] = []
        for index in 0..<5 {
            tasks.append(try await Self.queue(turns) { _ in
                threads.withLock { $0[index] = pthread_self() }
                return index
            })
        }
        try await holder.finish()
        for (index, task) in tasks.enumerated() { #expect(try await task.value == index) }
        let holderThread = try #require(holder.holderThread)
        let byHolder = threads.withLock { ran in (0..<5).filter { pthread_equal(ran[$0]!, holderThread) != 0 } }
        // The first two ran on the holder's loop; the third caller took the turn and ran the rest.
        #expect(byHolder == [0, 1])
    }

    @Test("a holder whose own job throws still runs the queued jobs and frees the turn")
    func aFailingHolderFreesTheTurn() async throws {
        let turns = WriterTurns<Void>()
        let holder = try await BlockedHolder(turns, failing: true)
        let queued = try await Self.queue(turns) { _ in 7 }
        try await holder.finish()
        #expect(try await queued.value == 7)
        // Free again: a new caller runs at once instead of waiting for ever.
        #expect(try await turns.run { 8 } == 8)
        #expect(turns.waiting == 0)
    }

    @Test("a caller that was passed the turn and whose job throws still serves the jobs behind it")
    func aFailingPassedTurnServesTheRest() async throws {
        struct Refused: Error {}
        let turns = WriterTurns<Void>(batch: 1)
        let holder = try await BlockedHolder(turns)
        let first = try await Self.queue(turns) { _ in 0 }
        let second = try await Self.queue(turns) { _ in throw Refused() }
        let third = try await Self.queue(turns) { _ in 2 }
        try await holder.finish()
        // The holder ran the first (its batch of one) and passed the turn to the second caller.
        #expect(try await first.value == 0)
        await #expect(throws: Refused.self) { try await second.value }
        #expect(try await third.value == 2)
        #expect(try await turns.run { 3 } == 3)
    }

    @Test("jobs from many callers at once never overlap and none is lost")
    func oneAtATime() async throws {
        /// Changed only inside jobs: what the turns alone must keep consistent.
        final class Counter: @unchecked Sendable {
            var value = 0
            let inside = Atomic<Bool>(false)
            let overlaps = Atomic<Int>(0)
        }
        let turns = WriterTurns<Void>(batch: 3)
        let counter = Counter()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for caller in 0..<64 {
                let loop = group.any()
                tasks.addTask {
                    try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
                        for _ in 0..<50 {
                            _ = try await turns.run {
                                if counter.inside.exchange(true, ordering: .acquiring) { counter.overlaps.add(1, ordering: .relaxed) }
                                counter.value += 1
                                counter.inside.store(false, ordering: .releasing)
                                return caller
                            }
                        }
                    }
                }
            }
            try await tasks.waitForAll()
        }
        try await group.shutdownGracefully()
        #expect(counter.overlaps.load(ordering: .relaxed) == 0)
        #expect(counter.value == 64 * 50)
        #expect(turns.waiting == 0)
    }
}
