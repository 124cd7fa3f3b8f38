import Hummingbird
import IdentityConfig
import Logging

/// The admin listener (`server.adminPort`, docs/operations.md, "Metrics"): `/metrics`, `/healthz`
/// and `/readyz` on an address of their own — loopback unless `server.adminHost` says otherwise —
/// so the metrics, which name routes, auth services and connector outcomes, are not served to the
/// broker's clients. Plain HTTP with the main listener's connection limits; it runs as one of the
/// main application's services and stops with it.
func buildAdminApplication(_ prepared: PreparedBroker, admin: AdminListener, logger: Logger) -> some ApplicationProtocol {
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    HealthController(engine: prepared.engine, metrics: prepared.metrics).register(on: router)
    return Application(
        router: router,
        server: brokerHTTPServer(prepared.engine.state.config.server.http),
        configuration: .init(address: .hostname(admin.host, port: admin.port), serverName: nil),
        logger: logger)
}
