import ArgumentParser
import EventLoopAffinity
import Foundation
import NIOCore
import NIOPosix
import Synchronization

extension BenchCommand {
    /// `idconnect bench executor`: what an `IDCONNECT_EXECUTOR` choice costs a request-shaped
    /// chain of async calls: how many trips through its event loop's queue a chain takes, and how
    /// long. A request goes through dozens of such calls (middleware, router, endpoint, verifier,
    /// store); under SwiftNIO's own takeover every call and every return is a trip.
    struct Executor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue trips and time per chain of nonisolated async calls under IDCONNECT_EXECUTOR (JSON).")

        @Option(help: "Chains to run.") var chains: Int = 20_000
        @Option(help: "Calls per chain.") var depth: Int = 40

        func run() async throws {
            guard let choice = ConcurrencyExecutor.chosen() else { throw ValidationError(ConcurrencyExecutor.refusal) }
            let executor = ConcurrencyExecutor.install(choice)
            let (chains, depth) = (max(1, chains), max(1, depth))
            // A fresh task starts where serve's request tasks start.
            let result = await Task { await ExecutorProbe.measure(chains: chains, depth: depth) }.value
            let json = try JSONSerialization.data(withJSONObject: [
                "executor": executor.rawValue, "on_event_loop": result.onEventLoop, "depth": depth, "chains": chains,
                "queue_trips_per_chain": result.queueTrips.map { Double($0) / Double(chains) } as Any,
                "queue_trips_per_chain_under_load": result.queueTripsUnderLoad.map { Double($0) / Double(chains) } as Any,
                "turn_under_load": result.turnUnderLoad as Any,
                "ns_per_chain": Int(result.seconds * 1e9 / Double(chains)),
            ], options: [.sortedKeys])
            print(String(decoding: json, as: UTF8.self))
        }
    }
}

/// Chains of `@concurrent` async calls that never wait, as a request's layers in the packages
/// are (Hummingbird, SwiftNIO, AsyncHTTPClient are built without `NonisolatedNonsendingByDefault`,
/// so each of their `nonisolated async` functions switches to the generic executor on entry;
/// ours, built with it, stay where their caller is and take no trip under any executor).
enum ExecutorProbe {
    struct Result {
        var seconds: Double
        var onEventLoop: Bool
        /// How often the chains left their loop's queue to other work (nil off a loop).
        var queueTrips: Int?
        /// The same while the server counts two requests in flight (`RequestsInFlight`), which is
        /// what `adaptive` decides by.
        var queueTripsUnderLoad: Int?
        /// Whether a request with another in flight waited its turn (`EventLoopTurns`; nil off a loop).
        var turnUnderLoad: Bool?
    }

    static func measure(chains: Int, depth: Int) async -> Result {
        let loop = MultiThreadedEventLoopGroup.currentEventLoop
        _ = await call(depth: depth)  // warm up
        let (seconds, trips) = await run(chains: chains, depth: depth, on: loop)
        // The executor decides when a task is enqueued, and a task that never waits is not
        // enqueued again: the loaded chains start in a task of their own, as a request's work
        // starts when its bytes arrive.
        RequestsInFlight.shared.started()
        RequestsInFlight.shared.started()
        let (_, tripsUnderLoad) = await Task { await run(chains: chains, depth: depth, on: loop) }.value
        RequestsInFlight.shared.finished(2)
        return Result(seconds: seconds, onEventLoop: loop != nil, queueTrips: trips, queueTripsUnderLoad: tripsUnderLoad,
                      turnUnderLoad: await turnUnderLoad(on: loop))
    }

    /// Seconds for `chains` chains, and their trips through `loop`'s queue.
    static func run(chains: Int, depth: Int, on loop: (any EventLoop)?) async -> (seconds: Double, trips: Int?) {
        // A ticker that puts itself back in the loop's queue each time it runs can only run while
        // a chain has given the thread back, i.e. between two of its queue trips.
        let ticker = loop.map { Ticker(loop: $0) }
        ticker?.start()
        let start = ContinuousClock.now
        var total = 0
        for _ in 0..<chains { total &+= await call(depth: depth) }
        let elapsed = ContinuousClock.now - start
        let trips = ticker?.stop()
        precondition(total == chains * depth)
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, trips)
    }

    /// Two requests in flight on `loop`: does the second let work queued before it run first?
    static func turnUnderLoad(on loop: (any EventLoop)?) async -> Bool? {
        guard let loop else { return nil }
        let turns = EventLoopTurns()
        return try? await turns.request {
            let marker = Marker()
            loop.execute { marker.value.store(true, ordering: .relaxed) }
            return try await turns.request { marker.value.load(ordering: .relaxed) }
        }
    }

    final class Marker: Sendable {
        let value = Atomic<Bool>(false)
    }

    @inline(never)
    @concurrent static func call(depth: Int) async -> Int {
        depth == 0 ? 0 : await call(depth: depth - 1) + 1
    }

    /// Counts its own turns in one loop's queue.
    final class Ticker: Sendable {
        let loop: any EventLoop
        private let ticks = Atomic<Int>(0)
        private let running = Atomic<Bool>(true)

        init(loop: any EventLoop) { self.loop = loop }

        func start() { loop.execute { self.tick() } }

        /// Stops ticking; returns the turns it had.
        func stop() -> Int {
            running.store(false, ordering: .relaxed)
            return ticks.load(ordering: .relaxed)
        }

        private func tick() {
            guard running.load(ordering: .relaxed) else { return }
            ticks.add(1, ordering: .relaxed)
            loop.execute { self.tick() }
        }
    }
}
