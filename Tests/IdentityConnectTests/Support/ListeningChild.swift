import Foundation
import NIOCore
import NIOPosix

/// A server child (the sample AuthLink, the idconnect binary) started on a loopback port the kernel
/// reported free, and waited for until it answers.
///
/// Between the probe closing the port and the child binding it, one of the many outgoing
/// connections other suites open at the same time can take that port as its local port; the child
/// then exits at start. That is the machine's doing, not the code under test's, so a child that
/// exits before answering is started again on another port, up to `tries` times.
enum ListeningChild {
    struct NotListening: Error, CustomStringConvertible { let description: String }

    /// Starts `spawn(port)` and polls `ready(port)` every 100 ms for up to 30 s (a debug binary on a
    /// loaded CI machine can take seconds to listen); returns the child, its port and what `ready`
    /// gave. The caller terminates the child.
    static func start<R>(_ what: String, tries: Int = 4, spawn: (Int) throws -> ChildProcess,
                         ready: (Int) async -> R?) async throws -> (process: ChildProcess, port: Int, ready: R) {
        var exited: [Int] = []
        for _ in 0..<tries {
            let port = try await freeLoopbackPort()
            let process = try spawn(port)
            for _ in 0..<300 where process.isRunning {
                if let answer = await ready(port) { return (process, port, answer) }
                try await Task.sleep(for: .milliseconds(100))
            }
            guard !process.isRunning else {
                process.terminate()
                throw NotListening(description: "\(what) did not listen on port \(port) within 30 s")
            }
            exited.append(port)
        }
        throw NotListening(description: "\(what) exited without listening, on each of ports \(exited)")
    }

    /// Binds a socket to 127.0.0.1 port 0, reads the port the kernel chose, and closes it.
    static func freeLoopbackPort() async throws -> Int {
        let socket = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = socket.localAddress?.port
        try await socket.close().get()
        guard let port else { throw NotListening(description: "no free loopback port") }
        return port
    }
}
