import Foundation
import IdentityCore
import Logging
import StoreContracts

/// Where audit events go besides the log: `server.audit.file` (see `AuditFile` in the app).
public protocol AuditSink: Sendable {
    func write(_ event: AuditEvent, at date: Date)
}

/// Records audit events three ways: one structured line each on the `idconnect.audit` log label
/// (message: the event name; fields: the event's), a counter per event name in `/metrics`
/// (`idconnect_audit_events_total`), and the optional sinks (a rotated JSON-lines file).
public struct AuditTrail: Sendable {
    /// The log label audit lines carry, so they can be routed and filtered apart from the rest.
    public static let label = "idconnect.audit"

    let logger: Logger
    let metrics: any BrokerMetricsSink
    let sinks: [any AuditSink]
    let clock: any BrokerClock

    public init(logger: Logger = Logger(label: AuditTrail.label), metrics: any BrokerMetricsSink = NoMetrics(),
                sinks: [any AuditSink] = [], clock: any BrokerClock = SystemClock()) {
        self.logger = logger
        self.metrics = metrics
        self.sinks = sinks
        self.clock = clock
    }

    public func record(_ event: AuditEvent) {
        metrics.audit(event.name.rawValue)
        if let kind = event.securityKind { metrics.securityEvent(kind) }
        var metadata: Logger.Metadata = ["event": .string(event.name.rawValue)]
        for (key, value) in event.fields { metadata[key] = .string(value) }
        logger.notice("\(event.name.rawValue)", metadata: metadata)
        let now = clock.now()
        for sink in sinks { sink.write(event, at: now) }
    }
}

extension AuditTrail {
    /// A session was stored for a sign-in at `client`'s auth service.
    func signedIn(_ session: LoginSession, client: ResolvedClient, address: String?) {
        var event = AuditEvent.signInSucceeded(connector: client.service.provider.type, authService: client.service.id,
                                               client: client.clientId, address: address, user: session.userId,
                                               subject: session.subject, session: session.id)
        if !session.amr.isEmpty { event.fields["amr"] = session.amr.joined(separator: " ") }
        record(event)
    }

    /// A sign-in at `client`'s auth service failed; `user` is what was typed, when anything was.
    func signInFailed(client: ResolvedClient, address: String?, user: String?, reason: String, detail: String? = nil) {
        record(.signInFailed(connector: client.service.provider.type, authService: client.service.id,
                             client: client.clientId, address: address, user: user, reason: reason, detail: detail))
    }

    /// Each of `sessions` ended for `reason`.
    func sessionsEnded(_ sessions: [String], reason: AuditEvent.SessionEnd, client: String? = nil) {
        for session in sessions { record(.sessionEnded(session: session, reason: reason, client: client)) }
    }
}
