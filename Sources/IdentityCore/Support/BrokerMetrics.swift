/// Events the engine reports for monitoring. The application turns them into Prometheus
/// metrics; tests and tools can ignore them.
public protocol BrokerMetricsSink: Sendable {
    /// A sign-in attempt: connector type (`static`, `ldap`, …) and outcome
    /// (`success`, `rejected`, `unavailable`, `error`, `throttled`).
    func login(connector: String, outcome: String)
    /// An upstream token refresh: outcome `refreshed`, `ended`, `unavailable`.
    func upstreamRefresh(connector: String, outcome: String)
    /// A vault operation: `seal`, `open`, `reseal`.
    func vault(_ operation: String)
    /// An audit event by name (`sign_in.succeeded`, `session.ended`, …).
    func audit(_ event: String)
    /// A security event by kind (`refresh_reuse`, `code_replay`, `qr_refused_unauthorized`).
    func securityEvent(_ kind: String)
    /// A refresh of an identity source's metadata (SAML `idpMetadataUrl`): the auth service and
    /// the outcome (`success`, `failure`, `shared`).
    func metadataRefresh(authService: String, outcome: String)
}

extension BrokerMetricsSink {
    public func metadataRefresh(authService: String, outcome: String) {}
}

/// Discards every event.
public struct NoMetrics: BrokerMetricsSink {
    public init() {}
    public func login(connector: String, outcome: String) {}
    public func upstreamRefresh(connector: String, outcome: String) {}
    public func vault(_ operation: String) {}
    public func audit(_ event: String) {}
    public func securityEvent(_ kind: String) {}
}
