import Foundation
import NIOCore
import NIOPosix

/// Where `serve` runs Swift concurrency jobs.
///
/// By default the broker makes SwiftNIO's event loops (the threads that already read and write
/// every socket) Swift's global executor. Request handlers then continue on the thread that read
/// the request instead of hopping to Swift's cooperative pool and back for every read and write:
/// `/oauth/validate` went from about 10,800 to about 18,500 req/s in the release benchmark
/// (docs/benchmarks.md, "The benchmark suite"). It is safe here because nothing on a request path
/// blocks a thread: libldap, xmlsec, password hashes and key generation run on `BlockingPool`s, and
/// the SQLite point reads are microseconds. `IDCONNECT_EXECUTOR=swift` keeps Swift's own pool (for
/// a custom connector that blocks, or to compare).
enum ConcurrencyExecutor: String {
    case eventLoops = "nio"
    case swift

    /// The choice made by `IDCONNECT_EXECUTOR` (`nio`, the default, or `swift`).
    static func chosen(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConcurrencyExecutor? {
        guard let value = environment["IDCONNECT_EXECUTOR"], !value.isEmpty else { return .eventLoops }
        return ConcurrencyExecutor(rawValue: value)
    }

    /// Installs the executor; call once, before the broker starts. Returns what is in effect
    /// (`swift` when NIO could not take over, e.g. another hook was already installed).
    ///
    /// Linux only: on Darwin NIO insists on being called from the main thread, which an async
    /// `run()` is not, so macOS development builds keep Swift's pool.
    static func install(_ choice: ConcurrencyExecutor) -> ConcurrencyExecutor {
        #if os(Linux)
        guard choice == .eventLoops else { return .swift }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() ? .eventLoops : .swift
        #else
        return .swift
        #endif
    }
}
