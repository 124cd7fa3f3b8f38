import HTTPTypes
import IdentityCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Translates NIOHTTP1's request parts into the shared HTTP types the router reads, and the
/// router's responses back: what swift-nio-extras' `HTTP1ToHTTPServerCodec` does, the same
/// request for the same bytes, without its two per-request costs on the hot path.
///
/// - The request target: an origin-form target (`/path?query`, what every client sends a server
///   that is not a proxy) is the request's path as it stands. The general conversion parses every
///   target with Foundation's `URLComponents` to find out that it has no scheme, and then returns
///   it unchanged; other forms (absolute-form `http://host/path`, asterisk-form `*`) still go
///   through it, so their answer is its answer.
/// - The `Host` header: moved into the authority with one comparison on the name's bytes, not a
///   lowercased copy of every header name and a second case-insensitive search.
final class HTTPServerTypesCodec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            do {
                context.fireChannelRead(wrapInboundOut(.head(try Self.request(from: head))))
            } catch {
                context.fireErrorCaught(error)
            }
        case .body(let body):
            context.fireChannelRead(wrapInboundOut(.body(body)))
        case .end(let trailers):
            context.fireChannelRead(wrapInboundOut(.end(trailers.map { HTTPFields($0, splitCookie: false) })))
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            context.write(wrapOutboundOut(.head(HTTPResponseHead(response))), promise: promise)
        case .body(let body):
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: promise)
        case .end(let trailers):
            context.write(wrapOutboundOut(.end(trailers.map(HTTPHeaders.init))), promise: promise)
        }
    }

    /// The shared-types request for `head`: scheme `http` (as Hummingbird's own channel sets it,
    /// also behind TLS), the first `Host` header as the authority, the other headers whose names
    /// are valid tokens as fields. Throws `HTTP1TypeConversionError.invalidMethod` for a method
    /// the shared types refuse.
    static func request(from head: HTTPRequestHead) throws -> HTTPRequest {
        guard head.uri.utf8.first == UInt8(ascii: "/") else {
            return try HTTPRequest(head, secure: false, splitCookie: false)
        }
        let method = try HTTPRequest.Method(head.method)
        var authority: String?
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            if authority == nil, isHost(name) {
                authority = value
                continue
            }
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        return HTTPRequest(method: method, scheme: "http", authority: authority, path: head.uri, headerFields: fields)
    }

    /// Whether a header name is `Host` in any case, without making a lowercased copy of it.
    static func isHost(_ name: String) -> Bool {
        name.utf8.count == 4 && name.hasASCIICaseInsensitivePrefix("host")
    }
}
