import Foundation
import Synchronization

/// Lets a reload of the signing keys run at most once per `interval`, with everyone who asks
/// while it runs waiting for that one run. Tokens naming a key this instance has not loaded are
/// normally a sibling instance's fresh key; junk tokens with made-up `kid`s must not turn into a
/// storage read each.
final class KeyReloadGate: Sendable {
    private struct State {
        var lastStarted: Date = .distantPast
        var running: Task<Void, Never>?
    }

    private let state = Mutex(State())
    let interval: TimeInterval

    init(interval: TimeInterval) {
        self.interval = interval
    }

    /// Runs `reload` unless a run started less than `interval` before `now`; joins a run in progress.
    /// Returns once no run this call could have joined or started is still going.
    func run(now: Date, _ reload: @escaping @Sendable () async -> Void) async {
        let task: Task<Void, Never>? = state.withLock { state in
            if let running = state.running { return running }
            guard now.timeIntervalSince(state.lastStarted) >= interval else { return nil }
            state.lastStarted = now
            let task = Task {
                await reload()
                self.state.withLock { $0.running = nil }
            }
            state.running = task
            return task
        }
        await task?.value
    }
}
