import EventLoopAffinity
import Foundation
import HummingbirdCore
import Hummingbird
import Tracing
import IdentityConfig
import StoreContracts
import Logging
import OAuthEngine
import ServiceLifecycle

/// Builds the HTTP application around a prepared broker, with its background services:
/// storage closing last, housekeeping, and SIGHUP reload.
/// `onListening` hears the bound address (`host:port`; the port is the real one when 0 was asked).
public func buildApplication(_ prepared: PreparedBroker, logger: Logger, maintenanceInterval: Duration = .seconds(60),
                             onListening: @escaping @Sendable (String) -> Void = { _ in }) -> some ApplicationProtocol {
    let router = buildRouter(prepared.engine, metrics: prepared.metrics)
    let limits = prepared.engine.state.config.server.http
    var services: [any Service] = [
        StoreCloser(store: prepared.engine.storage.maintenance, logger: logger),
        MaintenanceService(engine: prepared.engine, interval: maintenanceInterval, logger: logger),
        MetadataRefreshService(engine: prepared.engine, interval: maintenanceInterval),
        ReloadService(prepared: prepared, logger: logger),
        KeyWatchService(engine: prepared.engine, logger: logger),
    ]
    if let notifier = prepared.engine.logoutNotifier {
        services.append(BackchannelLogoutService(notifier: notifier, logger: logger))
    }
    if let admin = prepared.settings.admin {
        services.append(buildAdminApplication(prepared, admin: admin, logger: logger))
    }
    return Application(
        router: router,
        server: brokerHTTPServer(limits, tls: prepared.tls, documents: .wellKnown(prepared.engine), metrics: prepared.metrics),
        configuration: .init(address: .hostname(prepared.settings.host, port: prepared.settings.port), serverName: nil),
        services: services,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? prepared.settings.port
            onListening("\(prepared.settings.host):\(port)")
        },
        logger: logger)
}

/// The broker's HTTP/1.1 server with its connection limits (`server.http`,
/// docs/security.md, rule 8), over TLS when `tls` is given (`server.tls`): each connection gets
/// the context `tls` holds when it is accepted, and the limits apply to the decrypted requests.
/// `documents` are answered below the router (`PrecomputedDocumentHandler`), counted in `metrics`.
public func brokerHTTPServer(_ limits: HTTPLimits, tls: TLSContextSource? = nil, documents: PrecomputedDocuments? = nil,
                             metrics: MetricsRegistry? = nil) -> HTTPServerBuilder {
    guard let tls else {
        return HTTPServerBuilder { responder in
            GuardedHTTP1Channel(responder: responder, limits: limits, documents: documents, metrics: metrics)
        }
    }
    return HTTPServerBuilder { responder in
        BrokerTLSChannel(base: GuardedHTTP1Channel(responder: responder, limits: limits, documents: documents, metrics: metrics),
                         source: tls,
                         handshakeTimeout: .seconds(Int64(limits.headTimeout)))
    }
}

/// Runs the broker until SIGTERM/SIGINT; in-flight requests get up to 4 s to finish
/// (docs/operations.md, "Signals and shutdown"). Once listening it prints the startup summary
/// (`StartupSummary`) on standard output.
public func runBroker(_ prepared: PreparedBroker, logger: Logger) async throws {
    let application = buildApplication(prepared, logger: logger) { address in
        FileHandle.standardOutput.write(Data((StartupSummary.text(prepared, listening: "\(prepared.tls == nil ? "http" : "https")://\(address)") + "\n").utf8))
    }
    // Services shut down last to first: `DrainSignal` hears the signal before the server, so
    // long polls answer at once instead of holding the shutdown.
    var configuration = ServiceGroupConfiguration(
        services: [.init(service: application), .init(service: DrainSignal(draining: prepared.engine.draining))],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    // Within 5 s of SIGTERM the process is gone: in-flight requests get 4 s, then what is left
    // is cancelled and gets 1 s.
    configuration.maximumGracefulShutdownDuration = .seconds(4)
    configuration.maximumCancellationDuration = .seconds(1)
    try await ServiceGroup(configuration: configuration).run()
    logger.info("stopped")
}

/// Tells the engine that graceful shutdown began (``Draining``), then ends.
struct DrainSignal: Service {
    let draining: Draining

    func run() async throws {
        try? await gracefulShutdown()
        draining.begin()
    }
}

/// The router with every endpoint and middleware; also used directly by tests.
public func buildRouter(_ engine: BrokerEngine, metrics: MetricsRegistry = MetricsRegistry()) -> Router<AppRequestContext> {
    // HEAD is answered for every GET route (health checkers and link checkers use it).
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    // A span per request once a tracer is installed (`InstrumentationSystem.bootstrap`, e.g.
    // swift-otel). With the default no-op tracer the spans would go nowhere and still cost every
    // request (scripts/profile.py shows it).
    if !(InstrumentationSystem.tracer is NoOpTracer) {
        router.add(middleware: TracingMiddleware())
    }
    // The log line, the refusals and the error answers; under IDCONNECT_EXECUTOR=loops one turn per
    // request under load (under SwiftNIO's takeover requests interleave anyway).
    let services = AppServices(engine: engine, pages: Pages())
    router.add(middleware: BrokerMiddleware(
        metrics: metrics, turns: EventLoopGlobalExecutor.isolation == .never ? EventLoopTurns() : nil, pages: services.pages))
    WellKnownController(services: services).register(on: router)
    FaviconController().register(on: router)
    HealthController(engine: engine, metrics: metrics, servesMetrics: engine.state.config.server.admin == nil).register(on: router)
    let dataLinks = DataLinkController(services: services, clients: .shared)
    dataLinks.register(on: router)
    let authorize = AuthorizeController(services: services)
    let tempLogin = TempLoginController(services: services)
    let token = TokenController(services: services)
    let upstream = UpstreamController(services: services)
    let sessions = SessionController(services: services)
    let registration = RegistrationController(services: services)
    let qrLogin = QRLoginController(services: services)
    QRLoginAPIController(services: services).register(on: router)
    // The user's own account page (docs/account.md): served bare only, like the QR-login API.
    AccountController(services: services).register(on: router)
    upstream.registerSAML(on: router)
    SingleLogoutController(services: services).register(on: router)
    registerVersioned(router) { group in
        authorize.register(on: group)
        tempLogin.register(on: group)
        token.register(on: group)
        upstream.registerCallback(on: group)
        sessions.register(on: group)
        registration.register(on: group)
        qrLogin.register(on: group)
        DeviceController(services: services).register(on: group)
        SecondStepController(services: services).register(on: group)
        ConsentController(services: services).register(on: group)
        PermissionsController(services: services).register(on: group)
        BackchannelLogoutController(services: services).register(on: group)
    }
    // Last, so it wraps only the not-found answer (router middleware applies to routes added
    // after it): gateway requests with a method no route names.
    router.add(middleware: DataLinkAnyMethodMiddleware(controller: dataLinks))
    return router
}

/// Closes storage cleanly when the service group shuts down, and says so when it could not
/// (SQLite: the last commits may not be on the disk).
struct StoreCloser: Service {
    let store: any MaintenanceStore
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        do {
            try await store.close()
        } catch {
            logger.error("storage did not close cleanly", metadata: ["error": "\(error)"])
        }
    }
}
