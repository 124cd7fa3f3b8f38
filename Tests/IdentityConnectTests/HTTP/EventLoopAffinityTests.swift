import Dispatch
import EventLoopAffinity
import NIOCore
import NIOPosix
import Testing

/// Work that finishes on another thread (SQLite's writer queue, a connection on the other loop)
/// hands control back to the event loop that awaited it (`EventLoopAffinity`,
/// `EventLoopTaskExecutor`), not to whichever thread comes next.
@Suite("Event loops: coming back to the loop that waited")
struct EventLoopAffinityTests {
    /// Resumes the caller from a Dispatch thread, as GRDB's writer queue does.
    static func hopThroughDispatch() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { continuation.resume() }
        }
    }

    @Test("a task preferring the executor resumes on its loop after every await")
    func executorResumesOnItsLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let onLoop = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            var seen: [Bool] = [loop.inEventLoop]
            for _ in 0..<50 {
                await Self.hopThroughDispatch()
                seen.append(loop.inEventLoop)
            }
            return seen
        }
        #expect(onLoop.count == 51)
        #expect(onLoop.allSatisfy { $0 })
    }

    @Test("inside returning(on:), every await resumes on that loop")
    func returningResumesOnTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let onLoop = try await EventLoopAffinity.returning(on: loop) {
            var seen: [Bool] = []
            for _ in 0..<20 {
                await Self.hopThroughDispatch()
                seen.append(loop.inEventLoop)
            }
            return seen
        }
        #expect(onLoop.count == 20)
        #expect(onLoop.allSatisfy { $0 })
    }

    @Test("off an event loop it only runs the body, errors included")
    func offALoop() async throws {
        #expect(MultiThreadedEventLoopGroup.currentEventLoop == nil)
        let value = try await EventLoopAffinity.returning {
            await Self.hopThroughDispatch()
            return MultiThreadedEventLoopGroup.currentEventLoop == nil
        }
        #expect(value)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await EventLoopAffinity.returning { () async throws -> Int in throw Refused() }
        }
    }
}
