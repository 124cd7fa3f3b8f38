import NIOCore

/// A Swift `TaskExecutor` that runs jobs on one SwiftNIO event loop (`EventLoopAffinity`).
///
/// Only for code that never blocks a thread: everything on the broker's request path (blocking
/// C calls run on `BlockingPool`s).
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute {
            job.runSynchronously(on: executor)
        }
    }
}
