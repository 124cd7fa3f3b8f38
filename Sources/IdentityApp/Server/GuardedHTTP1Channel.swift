import HummingbirdCore
import IdentityConfig
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The broker's HTTP/1.1 child channel: Hummingbird's, with the broker's connection limits
/// (`server.http`, docs/security.md, rule 8): request heads must arrive within `headTimeout` and
/// fit in `maxHeadBytes` (`RequestHeadGuard`), idle keep-alive connections close after `idleTimeout`.
/// Under TLS the guard sits behind the TLS handler, on the decrypted bytes. With `documents`,
/// discovery and the JWKS are answered on the event loop before the router
/// (`PrecomputedDocumentHandler`). Requests reach the shared HTTP types through
/// `HTTPServerTypesCodec`, which takes an origin-form target as it stands.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let limits: HTTPLimits
    let documents: PrecomputedDocuments?
    let metrics: MetricsRegistry?
    /// The most header fields one request may carry (Hummingbird's default).
    static let maxHeaderFieldCount = 1000

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
        let documents = documents
        let metrics = metrics
        return channel.eventLoop.makeCompletedFuture {
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(
                RequestHeadGuard(state: state, headTimeout: .seconds(Int64(limits.headTimeout)), maxHeadBytes: limits.maxHeadBytes))
            // A backstop behind the guard: a head pipelined in the same read as the previous request
            // is parsed, not counted by the guard, and still bounded here (its headers; 431).
            var decoderLimits = NIOHTTPDecoderLimitConfiguration()
            decoderLimits.maxHeaderFieldSize = limits.maxHeadBytes
            decoderLimits.maxHeaderListSize = limits.maxHeadBytes
            decoderLimits.maxHeaderFieldCount = Self.maxHeaderFieldCount
            // As Hummingbird's `HTTP1Channel` sets it up: responses are ordered by the async
            // channel (no pipelining assistance), errors are answered by the application, and the
            // shared HTTP types have validated the outbound headers already.
            try operations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits)
            try operations.addHandler(HTTPServerTypesCodec())
            try operations.addHandler(RequestBoundaryObserver(state: state))
            try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: .seconds(Int64(limits.idleTimeout)), logger: logger))
            // Right after the connection-state handler (idle timeout, graceful shutdown), so that
            // it sees these requests as it sees the router's.
            if let documents {
                try operations.addHandler(PrecomputedDocumentHandler(documents: documents, metrics: metrics, logger: logger))
            }
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel,
                                       configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}
