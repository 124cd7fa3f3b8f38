import Synchronization

/// Login attempts of this instance waiting for a place under a throttle key whose every place is
/// taken by attempts in flight (`LoginThrottle.reserve`). Settling an attempt here wakes the
/// longest waiter of each of its keys, which asks the store again at once; every waiter also
/// asks again when its timeout passes, which is how it learns of attempts settled by other
/// instances (and of a wake it missed). Holds nothing but the waiters themselves.
final class ThrottleWaiters: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var nextId: UInt64 = 0
        var waiting: [String: [Waiter]] = [:]
        /// Waits begun and not yet ended (registered or about to be).
        var open: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Returns when `wake(_:)` names `key`, or after `timeout` (or at once when the task is cancelled).
    func wait(for key: String, timeout: Duration) async {
        let id = state.withLock { state in
            state.nextId += 1
            state.open.insert(state.nextId)
            return state.nextId
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let ended = self.state.withLock { state in
                        guard state.open.contains(id) else { return true }
                        state.waiting[key, default: []].append(Waiter(id: id, continuation: continuation))
                        return false
                    }
                    if ended { continuation.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.resume(key, id: id)
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Wakes the longest waiter of each key.
    func wake(_ keys: [String?]) {
        let woken = state.withLock { state in
            keys.compactMap { key -> Waiter? in
                guard let key, var queue = state.waiting[key], !queue.isEmpty else { return nil }
                let first = queue.removeFirst()
                state.waiting[key] = queue.isEmpty ? nil : queue
                state.open.remove(first.id)
                return first
            }
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// Waits under way (tests: nothing is left behind).
    var count: Int { state.withLock { $0.open.count } }

    /// Waits that a wake would end now (tests).
    var registered: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }

    /// Ends the wait of `id` whose timeout passed: resumes it when it is registered, or has it
    /// resume at once when it registers; nothing when a wake ended it already.
    private func resume(_ key: String, id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.open.remove(id) != nil else { return nil }
            guard var queue = state.waiting[key], let index = queue.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = queue.remove(at: index)
            state.waiting[key] = queue.isEmpty ? nil : queue
            return waiter
        }
        waiter?.continuation.resume()
    }
}
