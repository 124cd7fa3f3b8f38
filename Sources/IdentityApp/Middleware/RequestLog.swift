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
            "ms": .stringConvertible((seconds * 100_000).rounded() / 100),
            "client": .string(client ?? "-"),
        ])
    }

    /// Paths with secrets in them are logged with the secret segment replaced by `…`: the temp
    /// login URI's id, a registration's client id, the QR page's pending id, the second step's id
    /// and the QR code the app confirms (under `/v1`–`/v3` too).
    static func loggablePath(_ path: String) -> String {
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        for prefix in secretPrefixes {
            guard let start = firstMatch(of: prefix, in: components), start + prefix.count < components.count else { continue }
            components[start + prefix.count] = "…"
            break
        }
        return String(components.joined(separator: "/").prefix(200))
    }

    /// The segments after which a path's next segment is a secret.
    private static let secretPrefixes: [[Substring]] = [
        ["oauth", "authenticate"], ["oauth", "register"], ["oauth", "qr", "start"], ["oauth", "mfa"],
        ["api", "v3", "auth", "qr"],
    ]

    /// Where `prefix` first occurs in `components` as consecutive segments.
    private static func firstMatch(of prefix: [Substring], in components: [Substring]) -> Int? {
        guard components.count > prefix.count else { return nil }
        return (0..<(components.count - prefix.count)).first { start in
            prefix.indices.allSatisfy { components[start + $0] == prefix[$0] }
        }
    }
}
