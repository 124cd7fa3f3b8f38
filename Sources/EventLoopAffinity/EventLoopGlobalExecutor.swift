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
/// (`IDCONNECT_EXECUTOR=loops`).
///
/// SwiftNIO ships the same takeover (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`),
/// but it runs every job *isolated to the event loop's serial executor*. Swift then believes the
/// task is on a custom actor-like executor, and each call into a `nonisolated async` function, and
/// each return from one, must hop back to the generic executor: the runtime cannot switch in
/// place from a custom executor, so it enqueues the task again and the loop runs it again. An
/// introspection made about eighty-seven such round trips through the loop's queue (12% of its CPU
/// in `flagAsAndEnqueueOnExecutor`, plus the queue itself; docs/benchmarks.md).
///
/// Here a job runs on the *generic* executor, exactly as Swift's own cooperative pool runs it,
/// only on the event loop that enqueued it (or the next one). Calls between nonisolated functions
/// then continue in place; a task is enqueued only when it really waits. One request at a time
/// that is clearly cheaper; under heavy load on few cores the queue trips of SwiftNIO's takeover
/// interleave the requests stage by stage and measured faster, so `nio` stays the default.
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

    /// Installs the hook once, before anything else uses Swift concurrency heavily. Returns false
    /// (and changes nothing) when another hook is already installed, when the runtime has none,
    /// or when the executor reference does not have the layout this relies on.
    public static func install() -> Bool {
        #if os(Linux)
        guard MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<Int>.size,
              let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook")
        else { return false }
        let slot = symbol.assumingMemoryBound(to: UnsafeRawPointer?.self)
        guard slot.pointee == nil else { return false }
        return withUnsafeTemporaryAllocation(of: EnqueueGlobalHook.self, capacity: 1) { hook in
            hook.baseAddress!.initialize(to: { job, _ in EventLoopGlobalExecutor.enqueue(job) })
            slot.pointee = hook.baseAddress!.withMemoryRebound(to: UnsafeRawPointer.self, capacity: 1) { $0.pointee }
            installed.store(true, ordering: .relaxed)
            return true
        }
        #else
        return false
        #endif
    }

    /// Runs `job` on the generic executor on an event loop of the shared group: the one enqueuing
    /// it, when that is one of them (no thread switch), else the next.
    static func enqueue(_ job: UnownedJob) {
        let generic = generic
        MultiThreadedEventLoopGroup.singleton.any().execute {
            job.runSynchronously(on: generic)
        }
    }

    /// Whether `install()` succeeded in this process.
    public static var isInstalled: Bool { installed.load(ordering: .relaxed) }

    private static let installed = Atomic<Bool>(false)
}
