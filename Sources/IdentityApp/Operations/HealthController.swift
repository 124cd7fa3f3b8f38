import Hummingbird
import IdentityCore
import OAuthEngine

/// `/healthz` (process up), `/readyz` (storage reachable, config loaded) and `/metrics`
/// (docs/protocol.md, "Health, readiness, metrics"). With `server.adminPort` the main listener
/// leaves `/metrics` to the admin listener (`servesMetrics` false).
struct HealthController {
    let engine: BrokerEngine
    let metrics: MetricsRegistry
    var servesMetrics = true

    /// `/healthz`'s answer, encoded once: the route is polled by every load balancer and is the
    /// benchmarks' HTTP floor, so it does nothing a static route would not.
    static let healthy = Array(#"{"status":"ok"}"#.utf8)

    func register(on router: Router<AppRequestContext>) {
        router.get("healthz") { _, _ in Responses.json(bytes: Self.healthy, noStore: true) }
        router.get("readyz") { _, context in
            do {
                try await withTimeout(seconds: 2) { try await engine.storage.maintenance.ping() }
                return Responses.json(["status": "ready"])
            } catch {
                context.logger.warning("not ready: storage unreachable", metadata: ["error": "\(error)"])
                return Responses.json(["status": "unavailable", "reason": "storage unreachable"], status: .serviceUnavailable)
            }
        }
        guard servesMetrics else { return }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: .init(string: metrics.render())))
        }
    }
}

struct TimeoutError: Error {}

/// Runs `work`, giving up after `seconds`.
func withTimeout<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimeoutError()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
