@testable import SQLiteStore
import Synchronization
import Testing

/// A turn's jobs share one scope (for the store, one transaction and its commit): callers hear
/// back only after the scope has closed, a scope that fails to close fails every job that did not
/// fail on its own, and one that fails to open fails its jobs without running them. In each case
/// the turn is free afterwards.
@Suite("Writer turns: a turn's scope", .timeLimit(.minutes(3)))
struct WriterTurnScopeTests {
    typealias Holder = WriterTurnsTests.BlockedHolder

    /// What happened, in order, across the scope and the jobs' callers.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Makes the scope fail to open or to close while set.
    final class Switch: Sendable {
        private let value = Atomic<Bool>(false)
        var on: Bool {
            get { value.load(ordering: .acquiring) }
            set { value.store(newValue, ordering: .releasing) }
        }
    }

    struct CloseFailed: Error {}
    struct OpenFailed: Error {}
    struct Refused: Error {}

    @Test("the holder's job and the jobs queued behind it run in one scope, and no caller is resumed before it closes")
    func oneScopePerTurn() async throws {
        let log = Log()
        let turns = WriterTurns<Void>(scope: { body in
            log.add("open")
            body(())
            log.add("close")
        })
        let holder = try await Holder(turns, work: { log.add("holder") })
        var callers: [Task<Int, any Error>] = []
        for index in 0..<3 {
            let queued = try await WriterTurnsTests.queue(turns) { _ in log.add("job \(index)"); return index }
            callers.append(Task {
                let value = try await queued.value
                log.add("resumed \(value)")
                return value
            })
        }
        try await holder.finish()
        for (index, caller) in callers.enumerated() { #expect(try await caller.value == index) }
        let entries = log.all
        #expect(Array(entries.prefix(6)) == ["open", "holder", "job 0", "job 1", "job 2", "close"])
        #expect(Set(entries.dropFirst(6)) == ["resumed 0", "resumed 1", "resumed 2"])
    }

    @Test("a scope that fails to close fails every job of the turn that succeeded; a job's own error stands")
    func aFailedCloseFailsTheTurn() async throws {
        let failing = Switch()
        failing.on = true
        let turns = WriterTurns<Void>(scope: { body in
            body(())
            if failing.on { throw CloseFailed() }
        })
        let holder = try await Holder(turns, failing: true)
        let succeeded = try await WriterTurnsTests.queue(turns) { _ in 1 }
        let refused = try await WriterTurnsTests.queue(turns) { _ in throw Refused() }
        // The holder's own job throws `HolderFailed`, and that error stands (`finish` checks it).
        try await holder.finish()
        await #expect(throws: CloseFailed.self) { try await succeeded.value }
        await #expect(throws: Refused.self) { try await refused.value }
        failing.on = false
        #expect(try await turns.run { 2 } == 2)
        #expect(turns.waiting == 0)
    }

    @Test("a scope that fails to open fails its jobs unrun, and the callers queued behind still hear back")
    func aFailedOpenFailsItsJobsUnrun() async throws {
        let failing = Switch()
        let ran = Log()
        let turns = WriterTurns<Void>(batch: 1, scope: { body in
            if failing.on { throw OpenFailed() }
            body(())
        })
        let holder = try await Holder(turns)
        let first = try await WriterTurnsTests.queue(turns) { _ in ran.add("first"); return 0 }
        let second = try await WriterTurnsTests.queue(turns) { _ in ran.add("second"); return 1 }
        let third = try await WriterTurnsTests.queue(turns) { _ in ran.add("third"); return 2 }
        failing.on = true
        // The holder's scope is open already: it runs the first (its batch of one) and passes the
        // turn to the second caller, whose scope fails to open, as does the next one's.
        try await holder.finish()
        #expect(try await first.value == 0)
        await #expect(throws: OpenFailed.self) { try await second.value }
        await #expect(throws: OpenFailed.self) { try await third.value }
        #expect(ran.all == ["first"])
        await #expect(throws: OpenFailed.self) { try await turns.run { ran.add("free"); return 3 } }
        failing.on = false
        #expect(try await turns.run { 4 } == 4)
        #expect(ran.all == ["first"])
    }
}
