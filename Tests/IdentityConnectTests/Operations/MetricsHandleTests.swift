import EventLoopAffinity
@testable import IdentityApp
import Testing

/// The metrics registry makes each swift-metrics handle once and keeps it: a request looks its
/// series up by its labels. (It used to read `table[key, default: made]`, which never stores, so
/// every request made its series anew in the Prometheus registry.)
@Suite("Metrics: handles made once")
struct MetricsHandleTests {
    @Test("repeated requests, logins and audit events keep one handle each, and still count every one")
    func keptOnce() {
        let metrics = MetricsRegistry()
        for _ in 0..<3 {
            metrics.request(route: "/oauth/token", method: "POST", status: 200, seconds: 0.001)
            metrics.login(connector: "authlink", outcome: "success")
            metrics.audit("sign_in.succeeded")
        }
        metrics.request(route: "/oauth/token", method: "POST", status: 400, seconds: 0.001)
        let kept = metrics.handlesKept
        #expect(kept.series == 2)
        #expect(kept.counters == 4)
        #expect(kept.timers == 1)
        let text = metrics.render()
        #expect(text.contains(#"idconnect_http_requests_total{route="/oauth/token",method="POST",status="200"} 3"#), "\(text)")
        #expect(text.contains(#"idconnect_logins_total{connector="authlink",outcome="success"} 3"#), "\(text)")
    }
}

/// `/metrics` shows how many requests are in flight (`RequestsInFlight`), the count the
/// `adaptive` executor decides by.
@Suite("Metrics: requests in flight")
struct MetricsInFlightTests {
    @Test("the gauge shows the server's count at the moment of rendering")
    func gauge() {
        let count = RequestsInFlight()
        let metrics = MetricsRegistry(requestsInFlight: count)
        #expect(metrics.render().contains("idconnect_http_requests_in_flight 0"))
        count.started()
        count.started()
        #expect(metrics.render().contains("idconnect_http_requests_in_flight 2"))
        count.finished(2)
        #expect(metrics.render().contains("idconnect_http_requests_in_flight 0"))
    }
}
