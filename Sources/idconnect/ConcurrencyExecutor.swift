import EventLoopAffinity
import Foundation
import NIOCore
import NIOPosix

/// Where `serve` runs Swift concurrency jobs (`IDCONNECT_EXECUTOR`, docs/operations.md).
///
/// By default the broker makes SwiftNIO's event loops (the threads that already read and write
/// every socket) Swift's global executor. Request handlers then continue on the thread that read
/// the request instead of hopping to Swift's cooperative pool and back for every read and write,
/// which made validation markedly faster (docs/benchmarks-history.md, "Round one"). It is safe
/// here because nothing on a request path blocks a thread: libldap, xmlsec, password hashes and
/// key generation run on `BlockingPool`s, and the SQLite point reads are microseconds.
///
/// - `nio`: SwiftNIO's own takeover. Every job runs isolated to its loop, so each
///   call into and out of a nonisolated async function is a trip through the loop's queue (about
///   eighty per request). Under load on few cores that interleaves the requests of all
///   connections stage by stage, which measured best at 32 connections.
/// - `loops`: the same threads, but jobs run nonisolated (`EventLoopGlobalExecutor`): a request
///   runs from its first byte to its answer without queue trips. One request at a time it takes
///   less CPU and answers sooner; at 32 connections on two shared cores it measured below `nio`
///   (docs/benchmarks-history.md, "Performance round two, fourth stop").
/// - `adaptive` (the default): `loops` while at most one request is in flight, `nio` job by job
///   while several are (`RequestsInFlight`): the one-at-a-time speed of the one and the loaded
///   speed of the other.
/// - `swift`: Swift's own cooperative pool (for a custom connector that blocks, or to compare).
enum ConcurrencyExecutor: String, CaseIterable {
    case eventLoops = "nio"
    case nonisolatedLoops = "loops"
    case adaptive
    case swift

    /// The choice made by `IDCONNECT_EXECUTOR` (`adaptive`, the default, `nio`, `loops` or `swift`); nil for
    /// anything else.
    static func chosen(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConcurrencyExecutor? {
        guard let value = environment["IDCONNECT_EXECUTOR"], !value.isEmpty else { return .adaptive }
        return ConcurrencyExecutor(rawValue: value)
    }

    /// Installs the executor; call once, before the broker starts. Returns what is in effect
    /// (`swift` when the loops could not take over, e.g. another hook was already installed).
    ///
    /// Linux only: on Darwin NIO insists on being called from the main thread, which an async
    /// `run()` is not, so macOS development builds keep Swift's pool.
    static func install(_ choice: ConcurrencyExecutor) -> ConcurrencyExecutor {
        #if os(Linux)
        switch choice {
        case .eventLoops:
            return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() ? .eventLoops : .swift
        case .nonisolatedLoops:
            return EventLoopGlobalExecutor.install(isolation: .never) ? .nonisolatedLoops : .swift
        case .adaptive:
            return EventLoopGlobalExecutor.install(isolation: .underLoad) ? .adaptive : .swift
        case .swift:
            return .swift
        }
        #else
        return .swift
        #endif
    }

    /// What `serve` prints when `IDCONNECT_EXECUTOR` names none of these.
    static let refusal = "IDCONNECT_EXECUTOR must be " + allCases.map(\.rawValue).joined(separator: ", ")
}
