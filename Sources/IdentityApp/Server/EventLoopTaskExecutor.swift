import NIOCore

/// A Swift `TaskExecutor` that runs jobs on one SwiftNIO event loop.
///
/// When the event loops are Swift's global executor (`idconnect serve`'s default,
/// `IDCONNECT_EXECUTOR=nio`), a job that resumes after an `await` goes to whichever loop comes
/// next, not to the loop that owns the connection. A request that waits on SQLite's writer
/// queue then continued on the other loop, and its response hopped back to the connection's
/// loop to be written: two cross-thread wake-ups (an `eventfd` write and an `epoll_wait` return
/// each) where none is needed. A connection's task that prefers this executor
/// (`withTaskExecutorPreference`) resumes on its own loop and writes its response in place.
///
/// Only for tasks whose code never blocks a thread: everything on the broker's request path
/// (blocking C calls run on `BlockingPool`s).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute {
            job.runSynchronously(on: executor)
        }
    }
}
