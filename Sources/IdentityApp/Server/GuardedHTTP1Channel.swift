import HummingbirdCore
import IdentityConfig
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 child channel with the broker's connection limits (`server.http`,
/// docs/security.md, rule 8): request heads must arrive within `headTimeout` and fit in
/// `maxHeadBytes` (`RequestHeadGuard`), idle keep-alive connections close after `idleTimeout`.
/// Under TLS the guard sits behind the TLS handler, on the decrypted bytes. With `documents`,
/// discovery and the JWKS are answered on the event loop before the router
/// (`PrecomputedDocumentHandler`).
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let limits: HTTPLimits
    let documents: PrecomputedDocuments?
    let metrics: MetricsRegistry?

    init(responder: @escaping HTTPChannelHandler.Responder, limits: HTTPLimits,
         documents: PrecomputedDocuments? = nil, metrics: MetricsRegistry? = nil) {
        self.responder = responder
        self.limits = limits
        self.documents = documents
        self.metrics = metrics
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let state = RequestHeadState()
        let limits = limits
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestBoundaryObserver(state: state)],
            idleTimeout: .seconds(Int64(limits.idleTimeout)),
            // A backstop behind the guard: a head pipelined in the same read as the previous request
            // is parsed, not counted by the guard, and still bounded here (its headers; 431).
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.maxHeadBytes, maxHeaderListSize: limits.maxHeadBytes))
        let inner = HTTP1Channel(responder: responder, configuration: configuration)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                RequestHeadGuard(state: state, headTimeout: .seconds(Int64(limits.headTimeout)), maxHeadBytes: limits.maxHeadBytes))
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            guard let documents else { return value }
            // Right after the connection-state handler (idle timeout, graceful shutdown), so that
            // it sees these requests as it sees the router's.
            let operations = channel.pipeline.syncOperations
            let connectionState = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(PrecomputedDocumentHandler(documents: documents, metrics: metrics, logger: logger),
                                      position: .after(connectionState))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}
