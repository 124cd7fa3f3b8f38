#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import Synchronization

/// Makes SwiftNIO's event loops Swift's global executor with jobs that run nonisolated
/// (`IDCONNECT_EXECUTOR=loops`), or nonisolated only while at most one request is in flight
/// (`IDCONNECT_EXECUTOR=adaptive`, the default).
///
/// SwiftNIO ships the same takeover (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`),
/// but it runs every job *isolated to the event loop's serial executor*. Swift then believes the
/// task is on a custom actor-like executor, and each call into a `nonisolated async` function, and
/// each return from one, must hop back to the generic executor: the runtime cannot switch in
/// place from a custom executor, so it enqueues the task again and the loop runs it again: dozens
/// of round trips through the loop's queue per request (docs/benchmarks-history.md measures them).
///
/// Here a job runs on the *generic* executor, exactly as Swift's own cooperative pool runs it,
/// only on the event loop that enqueued it (or the next one). Calls between nonisolated functions
/// then continue in place; a task is enqueued only when it really waits. One request at a time
/// that is clearly cheaper; under heavy load on few cores the queue trips of SwiftNIO's takeover
/// interleave the requests stage by stage and measured faster. `adaptive` therefore decides per
/// job: while more than one request is in flight (``RequestsInFlight``) the job runs isolated to
/// its loop, exactly as under SwiftNIO's takeover; otherwise it runs nonisolated.
///
/// Safe for the same reason as SwiftNIO's takeover: nothing on the broker's request paths blocks a
/// thread (blocking C calls run on `BlockingPool`s).
public enum EventLoopGlobalExecutor {
    /// The shape of the runtime's `swift_task_enqueueGlobal_hook`: the job, and the runtime's own
    /// enqueue (unused: every job goes to an event loop).
    private typealias EnqueueGlobalHook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void

    /// Swift's generic executor (no isolation): both words of the reference are zero, as in the
    /// runtime's `SerialExecutorRef::generic()`. There is no public spelling of it.
    private static let generic = unsafeBitCast((0, 0) as (Int, Int), to: UnownedSerialExecutor.self)

    /// How jobs run once the hook is installed.
    public enum Isolation: Int, Sendable {
        /// Always nonisolated (`loops`).
        case never = 1
        /// Isolated to the loop while more than one request is in flight (`adaptive`).
        case underLoad = 2
    }

    /// Installs the hook once, before anything else uses Swift concurrency heavily. Returns false
    /// (and changes nothing) when another hook is already installed, when the runtime has none,
    /// or when the executor reference does not have the layout this relies on.
    public static func install(isolation: Isolation = .never) -> Bool {
        #if os(Linux)
        guard MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<Int>.size,
              let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook")
        else { return false }
        let slot = symbol.assumingMemoryBound(to: UnsafeRawPointer?.self)
        guard slot.pointee == nil else { return false }
        return withUnsafeTemporaryAllocation(of: EnqueueGlobalHook.self, capacity: 1) { hook in
            hook.baseAddress!.initialize(to: { job, _ in EventLoopGlobalExecutor.enqueue(job) })
            slot.pointee = hook.baseAddress!.withMemoryRebound(to: UnsafeRawPointer.self, capacity: 1) { $0.pointee }
            mode.store(isolation.rawValue, ordering: .relaxed)
            return true
        }
        #else
        return false
        #endif
    }

    /// Runs `job` on an event loop of the shared group (the one enqueuing it, when that is one of
    /// them: no thread switch, else the next): on the generic executor, or, under `adaptive` while
    /// several requests are in flight, isolated to the loop as SwiftNIO's takeover runs it.
    static func enqueue(_ job: UnownedJob) {
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        if mode.load(ordering: .relaxed) == Isolation.underLoad.rawValue, RequestsInFlight.shared.several {
            loop.enqueue(ExecutorJob(job))
            return
        }
        let generic = generic
        loop.execute {
            job.runSynchronously(on: generic)
        }
    }

    /// Whether `install()` succeeded in this process.
    public static var isInstalled: Bool { mode.load(ordering: .relaxed) != 0 }

    /// How jobs run; nil when the hook is not installed.
    public static var isolation: Isolation? { Isolation(rawValue: mode.load(ordering: .relaxed)) }

    /// 0 until `install` succeeds, then an ``Isolation``.
    private static let mode = Atomic<Int>(0)
}
