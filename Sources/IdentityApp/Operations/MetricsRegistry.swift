import EventLoopAffinity
import Foundation
import IdentityCore
import OAuthEngine
import Prometheus
import Synchronization

/// The broker's metrics: counters and histograms on a swift-prometheus registry of
/// this broker's own (never the process-wide one, so brokers in one process keep their own),
/// rendered at `/metrics` in the Prometheus text format, every family with its `# HELP` line
/// (``MetricHelp``). Request latency uses the standard duration buckets (5 ms … 10 s).
public final class MetricsRegistry: BrokerMetricsSink, Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Counter and histogram handles by name and label values, made once: a request must not
    /// allocate them.
    private let counters = Mutex<[MetricKey: Prometheus.Counter]>([:])
    private let timers = Mutex<[MetricKey: DurationHistogram]>([:])
    /// The process's own series (CPU, memory, files, threads, build), read at each scrape.
    private let process: ProcessMetrics
    private let requestSeries = Mutex<[RequestKey: RequestSeries]>([:])

    struct MetricKey: Hashable {
        var name: String
        var values: [String]
    }

    /// The server's requests read and not yet answered, read when `/metrics` is rendered.
    private let requestsInFlight: RequestsInFlight
    private let inFlightGauge: Prometheus.Gauge

    /// `requestsInFlight` is the count the server keeps (``RequestsInFlight/shared``: every
    /// broker of the process, the scrape itself included); tests give their own.
    public init(requestsInFlight: RequestsInFlight = .shared) {
        registry = PrometheusCollectorRegistry()
        self.requestsInFlight = requestsInFlight
        process = ProcessMetrics(registry: registry)
        inFlightGauge = registry.makeGauge(name: "idconnect_http_requests_in_flight", labels: [],
                                           help: MetricHelp.text("idconnect_http_requests_in_flight"))
    }

    /// Creates the login and refresh series of every connector type, and one audit series per
    /// event, with zero, so dashboards and alerts see them before the first event.
    public func prepare(connectorTypes: Set<String>) {
        for event in AuditEvent.Name.allCases { _ = counter("idconnect_audit_events_total", [("event", event.rawValue)]) }
        for kind in ["refresh_reuse", "code_replay", "qr_refused_unauthorized", "passkey_counter"] {
            _ = counter("idconnect_security_events_total", [("kind", kind)])
        }
        for type in connectorTypes.sorted() {
            for outcome in ["success", "rejected", "unavailable", "error", "throttled"] {
                _ = counter("idconnect_logins_total", [("connector", type), ("outcome", outcome)])
            }
            for outcome in ["refreshed", "ended", "unavailable"] {
                _ = counter("idconnect_upstream_refreshes_total", [("connector", type), ("outcome", outcome)])
            }
        }
    }

    /// Records one HTTP request. `route` is the matched route template, never the raw path.
    public func request(route: String, method: String, status: Int, seconds: Double) {
        requestSeries(route: route, method: method, status: status).record(seconds: seconds)
    }

    /// The two series one kind of request is recorded in (its count and its duration), found by
    /// a label struct: building and hashing label arrays on every request is a real share of the
    /// cheapest ones.
    private struct RequestSeries: Sendable {
        let counter: Prometheus.Counter
        let timer: DurationHistogram

        func record(seconds: Double) {
            counter.increment()
            timer.record(.nanoseconds(Int64(seconds * 1e9)))
        }
    }

    private func requestSeries(route: String, method: String, status: Int) -> RequestSeries {
        let key = RequestKey(route: route, method: method, status: status)
        if let known = requestSeries.withLock({ $0[key] }) { return known }
        let made = RequestSeries(
            counter: counter("idconnect_http_requests_total", [("route", route), ("method", method), ("status", String(status))]),
            timer: timer("idconnect_http_request_duration_seconds", [("route", route)]))
        return requestSeries.withLock { Self.stored(made, at: key, in: &$0) }
    }

    /// What `table` holds at `key`, storing `made` there first when it holds nothing (a request
    /// that raced this one may have stored its own). Reading `table[key, default: made]` would
    /// return `made` without storing it: every request then made its series anew in the
    /// Prometheus registry, by label arrays under the registry's lock.
    static func stored<Key: Hashable, Value>(_ made: Value, at key: Key, in table: inout [Key: Value]) -> Value {
        if let raced = table[key] { return raced }
        table[key] = made
        return made
    }

    /// How many request series, counters and timers are kept (tests: each is made once).
    var handlesKept: (series: Int, counters: Int, timers: Int) {
        (requestSeries.withLock(\.count), counters.withLock(\.count), timers.withLock(\.count))
    }

    /// A request's series by its labels, without building label arrays (every request looks here).
    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    public func login(connector: String, outcome: String) {
        counter("idconnect_logins_total", [("connector", connector), ("outcome", outcome)]).increment()
    }

    public func upstreamRefresh(connector: String, outcome: String) {
        counter("idconnect_upstream_refreshes_total", [("connector", connector), ("outcome", outcome)]).increment()
    }

    public func vault(_ operation: String) {
        counter("idconnect_vault_operations_total", [("operation", operation)]).increment()
    }

    public func audit(_ event: String) {
        counter("idconnect_audit_events_total", [("event", event)]).increment()
    }

    public func securityEvent(_ kind: String) {
        counter("idconnect_security_events_total", [("kind", kind)]).increment()
    }

    /// `idconnect_saml_metadata_refreshes_total{auth_service, outcome}`: IdP metadata fetched and
    /// in use (`success`), failed with the last good copy kept (`failure`), or taken from another
    /// instance's fetch (`shared`).
    public func metadataRefresh(authService: String, outcome: String) {
        counter("idconnect_saml_metadata_refreshes_total", [("auth_service", authService), ("outcome", outcome)]).increment()
    }

    /// The exposition text.
    public func render() -> String {
        inFlightGauge.set(to: Double(requestsInFlight.current))
        process.update()
        return registry.emitToString()
    }

    private func counter(_ name: String, _ labels: [(String, String)]) -> Prometheus.Counter {
        let key = MetricKey(name: name, values: labels.map(\.1))
        if let existing = counters.withLock({ $0[key] }) { return existing }
        let made = registry.makeCounter(name: name, labels: labels, help: MetricHelp.text(name))
        return counters.withLock { Self.stored(made, at: key, in: &$0) }
    }

    private func timer(_ name: String, _ labels: [(String, String)]) -> DurationHistogram {
        let key = MetricKey(name: name, values: labels.map(\.1))
        if let existing = timers.withLock({ $0[key] }) { return existing }
        let made = registry.makeDurationHistogram(name: name, labels: labels, buckets: Self.durationBuckets,
                                                  help: MetricHelp.text(name))
        return timers.withLock { Self.stored(made, at: key, in: &$0) }
    }

    /// Request latency buckets: 5 ms … 10 s (Prometheus's standard duration buckets).
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
}
