import Synchronization

/// Says that the broker is shutting down, so requests that would otherwise wait (the QR-login
/// page's long poll, up to 20 s) answer at once with what they have and the server can stop
/// within its shutdown budget (docs/operations.md, "Signals and shutdown").
public final class Draining: Sendable {
    private let started = Atomic<Bool>(false)

    public init() {}

    /// Called once when graceful shutdown begins.
    public func begin() { started.store(true, ordering: .relaxed) }

    public var isDraining: Bool { started.load(ordering: .relaxed) }
}
