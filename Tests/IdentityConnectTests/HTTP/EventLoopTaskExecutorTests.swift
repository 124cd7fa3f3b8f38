import Dispatch
import Hummingbird
import HummingbirdTesting
@testable import IdentityApp
import IdentityConfig
import NIOCore
import NIOPosix
import Testing

/// A connection's Swift task stays on the event loop of its channel (`EventLoopTaskExecutor`):
/// after an `await` resumed by another thread (SQLite's writer queue, a connector's reply) it
/// continues there, not on whichever thread comes next.
@Suite("HTTP: connection tasks on their event loop")
struct EventLoopTaskExecutorTests {
    /// Resumes the caller from a Dispatch thread, as GRDB's writer queue does.
    static func hopThroughDispatch() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { continuation.resume() }
        }
    }

    @Test("a task preferring the executor resumes on its loop after every await")
    func resumesOnItsLoop() async throws {
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

    @Test("a request handler runs on an event loop with eventLoopTasks, on Swift's pool without")
    func handlersOnTheLoop() async throws {
        for eventLoopTasks in [true, false] {
            let router = Router()
            router.get("/where") { _, _ -> String in
                await Self.hopThroughDispatch()
                return MultiThreadedEventLoopGroup.currentEventLoop == nil ? "pool" : "loop"
            }
            let app = Application(router: router, server: brokerHTTPServer(HTTPLimits(), eventLoopTasks: eventLoopTasks),
                                  configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await app.test(.live) { client in
                for _ in 0..<5 {
                    let response = try await client.execute(uri: "/where", method: .get)
                    #expect(String(buffer: response.body) == (eventLoopTasks ? "loop" : "pool"))
                }
            }
        }
    }
}
