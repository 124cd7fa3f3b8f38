import Synchronization

/// At most `limit` callers inside at once; the others wait in arrival order. One directory's
/// pool uses it so that a directory that stops answering can hold only its own share of the
/// network threads, never all of them.
public final class ConcurrencyLimit: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    public let limit: Int
    private let state = Mutex(State())

    public init(_ limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` once fewer than `limit` other callers are inside.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.running < limit else {
                    state.waiting.append(continuation)
                    return false
                }
                state.running += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        // The slot passes straight to the next waiter, so `running` stays the same.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
