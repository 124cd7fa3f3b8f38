import Foundation
import IdentityCore
import Synchronization

/// The broker's Prometheus metrics (text exposition format 0.0.4), kept in memory.
///
/// Small on purpose: a few labelled counters and one latency histogram, behind one lock each.
public final class MetricsRegistry: BrokerMetricsSink, Sendable {
    struct Histogram {
        var buckets: [Int]
        var sum: Double = 0
        var count: Int = 0
    }

    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Label pairs as given; escaped only when rendered, so counting a request builds no strings.
    struct LabelSet: Hashable {
        var pairs: [String]

        init(_ labels: [(String, String)]) { pairs = labels.flatMap { [$0.0, $0.1] } }

        var rendered: String {
            stride(from: 0, to: pairs.count, by: 2).map { "\(pairs[$0])=\"\(MetricsRegistry.escape(pairs[$0 + 1]))\"" }
                .joined(separator: ",")
        }
    }

    private let counters = Mutex<[String: [LabelSet: Double]]>([:])
    private let histograms = Mutex<[String: Histogram]>([:])

    public init() {}

    static let help: [String: String] = [
        "idconnect_http_requests_total": "HTTP requests by route, method and status.",
        "idconnect_logins_total": "Sign-in attempts by connector type and outcome.",
        "idconnect_upstream_refreshes_total": "Upstream token refreshes by connector type and outcome.",
        "idconnect_vault_operations_total": "Vault seal/open operations.",
    ]

    func increment(_ name: String, _ labels: [(String, String)]) {
        let key = LabelSet(labels)
        counters.withLock { $0[name, default: [:]][key, default: 0] += 1 }
    }

    /// Records one HTTP request. `route` is the matched route template, never the raw path.
    public func request(route: String, method: String, status: Int, seconds: Double) {
        increment("idconnect_http_requests_total", [("route", route), ("method", method), ("status", String(status))])
        histograms.withLock { all in
            let empty = Histogram(buckets: Array(repeating: 0, count: Self.bounds.count))
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { all[route, default: empty].buckets[index] += 1 }
            all[route, default: empty].sum += seconds
            all[route, default: empty].count += 1
        }
    }

    public func login(connector: String, outcome: String) {
        increment("idconnect_logins_total", [("connector", connector), ("outcome", outcome)])
    }

    public func upstreamRefresh(connector: String, outcome: String) {
        increment("idconnect_upstream_refreshes_total", [("connector", connector), ("outcome", outcome)])
    }

    public func vault(_ operation: String) {
        increment("idconnect_vault_operations_total", [("operation", operation)])
    }

    /// The exposition text.
    public func render() -> String {
        var lines: [String] = []
        let counterSnapshot = counters.withLock { $0 }
        for name in Set(counterSnapshot.keys).union(Self.help.keys).sorted() {
            lines.append("# HELP \(name) \(Self.help[name] ?? name)")
            lines.append("# TYPE \(name) counter")
            let rendered = (counterSnapshot[name] ?? [:]).map { (labels: $0.key.rendered, value: $0.value) }
            for (labels, value) in rendered.sorted(by: { $0.labels < $1.labels }) {
                lines.append("\(name){\(labels)} \(Self.format(value))")
            }
        }
        let name = "idconnect_http_request_duration_seconds"
        lines.append("# HELP \(name) HTTP request latency by route.")
        lines.append("# TYPE \(name) histogram")
        for (route, histogram) in histograms.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            let label = "route=\"\(Self.escape(route))\""
            for (index, bound) in Self.bounds.enumerated() {
                lines.append("\(name)_bucket{\(label),le=\"\(Self.format(bound))\"} \(histogram.buckets[index])")
            }
            lines.append("\(name)_bucket{\(label),le=\"+Inf\"} \(histogram.count)")
            lines.append("\(name)_sum{\(label)} \(Self.format(histogram.sum))")
            lines.append("\(name)_count{\(label)} \(histogram.count)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        return value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
