import Foundation
import Testing

/// Where `idconnect serve` runs Swift concurrency (`IDCONNECT_EXECUTOR`), checked through
/// `idconnect bench executor`, which installs the same executor in a process of its own (an
/// executor is process-wide): a chain of forty nested nonisolated async calls that never waits.
@Suite("serve's executor")
struct ServeExecutorTests {
    struct Probe: Decodable {
        var executor: String
        var on_event_loop: Bool
        var queue_trips_per_chain: Double?
        var queue_trips_per_chain_under_load: Double?
        var turn_under_load: Bool?
        var depth: Int
    }

    static func probe(_ choice: String?) throws -> Probe {
        let binary = SampleAuthLink.root.appendingPathComponent(".build/debug/idconnect")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw SampleAuthLink.SampleMissing(description: "\(binary.path) is missing: run `swift build` (scripts/test.sh does) before the tests")
        }
        // Not Foundation's `Process`: its `run()` crashed this suite (`ChildProcess` says why).
        let (status, data) = try ChildProcess.output(binary.path, ["bench", "executor", "--chains", "200", "--depth", "40"],
                                                     environment: choice.map { ["IDCONNECT_EXECUTOR": $0] } ?? [:],
                                                     unset: choice == nil ? ["IDCONNECT_EXECUTOR"] : [])
        #expect(status == 0)
        return try JSONDecoder().decode(Probe.self, from: Data(data))
    }

    @Test("loops: the calls stay on the event loop's thread, no trip through its queue")
    func loopsStayOnTheThread() throws {
        let probe = try Self.probe("loops")
        #expect(probe.executor == "loops")
        #expect(probe.on_event_loop)
        #expect(probe.queue_trips_per_chain == 0)
        #expect(probe.queue_trips_per_chain_under_load == 0)
        // With another request in flight, a request waits one turn in the loop's queue.
        #expect(probe.turn_under_load == true)
    }

    /// `adaptive` runs a lone request like `loops` and, once several are in flight, every job as
    /// SwiftNIO's takeover does (the interleaving that measured faster under load).
    @Test("adaptive (the default, also when unset): no queue trip with one request in flight, two per call with several")
    func adaptiveFollowsTheLoad() throws {
        for choice in ["adaptive", nil] {
            let probe = try Self.probe(choice)
            #expect(probe.executor == "adaptive")
            #expect(probe.on_event_loop)
            #expect(probe.queue_trips_per_chain == 0)
            #expect((probe.queue_trips_per_chain_under_load ?? 0) >= Double(probe.depth))
            // The interleaving replaces the turn `loops` takes.
            #expect(probe.turn_under_load == false)
        }
    }

    /// Why `loops` and `adaptive` exist: SwiftNIO's takeover runs jobs isolated to the loop, so
    /// every call into and out of a nonisolated function goes through the queue. If SwiftNIO
    /// changes this, the default deserves a new measurement (docs/benchmarks.md).
    @Test("nio: on the event loops, two queue trips per call")
    func nioTripsThroughTheQueue() throws {
        let probe = try Self.probe("nio")
        #expect(probe.executor == "nio")
        #expect(probe.on_event_loop)
        #expect((probe.queue_trips_per_chain ?? 0) >= Double(probe.depth))
        #expect((probe.queue_trips_per_chain_under_load ?? 0) >= Double(probe.depth))
    }

    @Test("swift: Swift's own pool, off the event loops")
    func swiftPool() throws {
        let probe = try Self.probe("swift")
        #expect(probe.executor == "swift")
        #expect(!probe.on_event_loop)
        #expect(probe.queue_trips_per_chain == nil)
        #expect(probe.queue_trips_per_chain_under_load == nil)
        #expect(probe.turn_under_load == nil)
    }
}
