import Foundation
import Hummingbird
import IdentityCore
import Logging

/// One structured log line per request: request id, method, path (never the query, which can
/// carry codes and tokens), status and duration; and the request's metrics.
enum RequestLog {
    /// Counts a request in `metrics` under `route` and writes its log line (also for the requests
    /// `PrecomputedDocumentHandler` answers before the router).
    static func record(on logger: Logger, metrics: MetricsRegistry?, route: String, method: String, path: String,
                       status: Int, client: String?, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics?.request(route: route, method: method, status: status, seconds: seconds)
        guard logger.logLevel <= .info else { return }
        logger.info("request", metadata: [
            "method": .string(method),
            "path": .string(loggablePath(path)),
            "status": .stringConvertible(status),
            "ms": .string(String(format: "%.2f", seconds * 1000)),
            "client": .string(client ?? "-"),
        ])
    }

    /// Paths with secrets in them (temp login ids, registration ids) are logged with the secret cut.
    static func loggablePath(_ path: String) -> String {
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        // .../oauth/authenticate/{secret} and .../oauth/register/{secret}
        if let index = components.firstIndex(where: { $0 == "authenticate" || $0 == "register" }),
           index > 0, components[index - 1] == "oauth", index + 1 < components.count {
            components = Array(components[...index]) + ["…"]
        }
        return String(components.joined(separator: "/").prefix(200))
    }
}
