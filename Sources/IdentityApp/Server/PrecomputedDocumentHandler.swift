import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes
import OAuthEngine

/// The documents every client and resource server fetches and nobody personalises — discovery
/// (both well-known names) and the JWKS — looked up by path. Each lookup returns the bytes of
/// the live state (rebuilt on reload and key rotation by `DiscoveryEndpoint`).
public struct PrecomputedDocuments: Sendable {
    /// One served document: its bytes and entity tag, and how long caches may keep it.
    public struct Entry: Sendable {
        public let document: CachedDocument
        public let maxAge: Int
    }

    let lookup: @Sendable (Substring) -> Entry?

    public init(lookup: @escaping @Sendable (Substring) -> Entry?) { self.lookup = lookup }

    /// Discovery and JWKS of `engine`, at the paths `WellKnownController` also routes.
    public static func wellKnown(_ engine: BrokerEngine) -> PrecomputedDocuments {
        PrecomputedDocuments { path in
            switch path {
            case "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server":
                Entry(document: engine.discovery.cached(), maxAge: WellKnownController.discoveryMaxAge)
            case "/.well-known/jwks.json":
                Entry(document: engine.discovery.jwks(), maxAge: WellKnownController.jwksMaxAge)
            default:
                nil
            }
        }
    }
}

/// Answers `GET` of a precomputed document on the event loop, below Hummingbird's router: the
/// request never becomes a Swift task, and head and body leave in one write. Everything else
/// passes through untouched, and so does a document request the router must see:
///
/// - while a response of the connection is still being written (a pipelined request is answered
///   in order by the router, never ahead of the one before it);
/// - with a body (a `Content-Length` other than 0, any `Transfer-Encoding`) or any method but
///   `GET` (`HEAD` and the 405s stay the router's);
/// - with a query string or a path that is not byte for byte one of the documents.
///
/// The answer is the router's (`WellKnownController.serve`): the same bytes, `ETag`,
/// `Cache-Control`, `Access-Control-Allow-Origin: *` (any origin may read these, CORS), 304 for a
/// matching `If-None-Match`, an `X-Request-Id` and a `Date`; `Connection: close` is honoured.
/// (A CORS preflight is an `OPTIONS`, which the router answers.) The request is counted
/// in the metrics under the same route and logged like any other. It sits right after
/// Hummingbird's connection-state handler, so idle timeouts and graceful shutdown see its
/// requests and responses as they see the router's.
final class PrecomputedDocumentHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let documents: PrecomputedDocuments
    private let metrics: MetricsRegistry?
    private let logger: Logger
    /// Requests passed on to the router whose response has not been written to its end.
    private var routedInFlight = 0
    /// The request being answered here: its remaining parts (`.end`, any body) are dropped.
    private var answering = false
    /// The answers last sent on this connection, kept while the document's tag is current.
    private var prepared: [Prepared] = []
    private var date = HTTPDateCache()

    /// What an answer of one document repeats: its body and both sets of headers.
    private struct Prepared {
        let path: String
        let etag: String
        let body: ByteBuffer
        let okFields: HTTPFields
        let notModifiedFields: HTTPFields
    }

    init(documents: PrecomputedDocuments, metrics: MetricsRegistry?, logger: Logger) {
        self.documents = documents
        self.metrics = metrics
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            if routedInFlight == 0, let entry = servable(head) {
                answering = true
                answer(head, entry, context: context)
                return
            }
            routedInFlight += 1
        case .body, .end:
            if answering {
                if case .end = part { answering = false }
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routedInFlight = max(0, routedInFlight - 1) }
        context.write(data, promise: promise)
    }

    /// The document this head asks for, when it may be answered here.
    private func servable(_ head: HTTPRequest) -> PrecomputedDocuments.Entry? {
        // The path first: nearly every request is for another route, and is let through at once.
        guard head.method == .get, let path = head.path, path.utf8.first == UInt8(ascii: "/"),
              let entry = documents.lookup(Substring(path)),
              head.headerFields.value(.contentLength) ?? "0" == "0", head.headerFields.value(.transferEncoding) == nil else { return nil }
        return entry
    }

    private func answer(_ head: HTTPRequest, _ entry: PrecomputedDocuments.Entry, context: ChannelHandlerContext) {
        let started = ContinuousClock.now
        let document = entry.document
        let ready = prepare(path: head.path ?? "/", entry)
        let requestId = RequestID().description
        let notModified = document.matches(ifNoneMatch: head.headerFields[.ifNoneMatch])
        var fields = notModified ? ready.notModifiedFields : ready.okFields
        fields[.requestId] = requestId
        fields[.date] = date.current()
        let closing = Self.asksToClose(head)
        if closing { fields[.connection] = "close" }
        let status: HTTPResponse.Status = notModified ? .notModified : .ok
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        if !notModified {
            context.write(wrapOutboundOut(.body(ready.body)), promise: nil)
        }
        if closing {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        record(head, status: status, requestId: requestId, context: context, since: started)
    }

    /// The body and headers of `entry` at `path`, made once per document version and connection.
    private func prepare(path: String, _ entry: PrecomputedDocuments.Entry) -> Prepared {
        let document = entry.document
        if let ready = prepared.first(where: { $0.path == path }), ready.etag == document.etag { return ready }
        var okFields = WellKnownController.headers(for: document, maxAge: entry.maxAge, notModified: false)
        okFields[.contentLength] = String(document.bytes.count)
        let ready = Prepared(path: path, etag: document.etag, body: ByteBuffer(bytes: document.bytes), okFields: okFields,
                             notModifiedFields: WellKnownController.headers(for: document, maxAge: entry.maxAge, notModified: true))
        prepared.removeAll { $0.path == path }
        prepared.append(ready)
        return ready
    }

    /// Whether the `Connection` header carries the `close` option (RFC 9112 §9.6).
    static func asksToClose(_ head: HTTPRequest) -> Bool {
        head.headerFields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }

    /// The metrics and the log line `BrokerMiddleware` writes for a routed request.
    private func record(_ head: HTTPRequest, status: HTTPResponse.Status, requestId: String,
                        context: ChannelHandlerContext, since started: ContinuousClock.Instant) {
        var requestLogger = logger
        if logger.logLevel <= .info { requestLogger[metadataKey: "hb.request.id"] = .string(requestId) }
        let path = head.path ?? "/"
        RequestLog.record(on: requestLogger, metrics: metrics, route: path, method: head.method.rawValue, path: path,
                          status: Int(status.code), client: context.channel.remoteAddress?.ipAddress, since: started)
    }
}
