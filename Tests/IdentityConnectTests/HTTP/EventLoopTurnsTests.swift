import EventLoopAffinity
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// `EventLoopTurns` counts a server's requests in flight and, only under
/// `IDCONNECT_EXECUTOR=loops` (a process-wide hook the test process does not install), gives
/// each request one turn through its loop's queue when others are in flight. Here: the counting,
/// and that without the hook nothing waits (the turn itself is measured by the benchmarks).
@Suite("Event loops: taking turns under load")
struct EventLoopTurnsTests {
    final class Marker: Sendable {
        let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    @Test("requests are counted while in flight, nested and failing ones included")
    func counting() async throws {
        let turns = EventLoopTurns()
        let seen = try await turns.request { try await turns.request { turns.requestsInFlight } }
        #expect(seen == 2)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await turns.request { () async throws -> Int in throw Refused() }
        }
        #expect(turns.requestsInFlight == 0)
    }

    @Test("without the loops executor installed, a request on a loop is handled at once even under load")
    func noTurnWithoutTheHook() async throws {
        #expect(!EventLoopGlobalExecutor.isInstalled)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let turns = EventLoopTurns()
        let waited = try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            try await turns.request {
                let marker = Marker()
                loop.execute { marker.value.store(true, ordering: .relaxed) }
                return try await turns.request { marker.isSet }
            }
        }
        #expect(!waited)
    }
}
