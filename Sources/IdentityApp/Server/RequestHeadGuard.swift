import EventLoopAffinity
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// What the two halves of the request-head guard share about one connection. Used on the
/// connection's event loop only (hence unchecked).
final class RequestHeadState: @unchecked Sendable {
    /// Waiting for (or reading) a request head: bytes are counted and the head timer runs.
    var awaitingHead = true
    var headBytes = 0
    /// Finds the `CRLF CRLF` ending the head, also across reads.
    var headEnd = HeadEndScanner()
    /// Requests whose response has not been fully written: a raw error answer must not interleave.
    var responsesPending = 0
    var timer: Scheduled<Void>?
    /// How many head timers this connection started: one per head that did not arrive whole in
    /// one read, none for the others (what `RequestHeadGuardTests` checks).
    var timersStarted = 0
    /// Refused: what the client still sends is read and dropped until the connection closes.
    var discarding = false
}

/// The raw-bytes half of the HTTP limits (docs/security.md, rule 8), placed before the HTTP
/// decoder: a request head must be complete within `headTimeout` of its first byte (else 408 and
/// the connection closes) and may be at most `maxHeadBytes` long (else 431). A slow-loris client
/// thereby holds a connection for seconds, not forever, and never a thread.
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let state: RequestHeadState
    let headTimeout: TimeAmount
    let maxHeadBytes: Int

    init(state: RequestHeadState, headTimeout: TimeAmount, maxHeadBytes: Int) {
        self.state = state
        self.headTimeout = headTimeout
        self.maxHeadBytes = maxHeadBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if state.discarding { return }
        let buffer = unwrapInboundIn(data)
        if state.awaitingHead, buffer.readableBytes > 0 {
            if let end = headEnd(in: buffer) {
                state.headBytes += end
                state.awaitingHead = false
                state.timer?.cancel()
                state.timer = nil
            } else {
                state.headBytes += buffer.readableBytes
                // The clock runs from the read that began the head; a head that arrives whole in
                // one read (nearly every request) never starts it: scheduling and cancelling a
                // timer per request would cost small requests more than the rest of their head.
                if state.timer == nil { startTimer(context) }
            }
            if state.headBytes > maxHeadBytes {
                refuse(context, status: "431 Request Header Fields Too Large",
                       description: "The request head is larger than \(maxHeadBytes) bytes.")
                return
            }
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        state.timer?.cancel()
        state.timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.timer?.cancel()
        state.timer = nil
        context.fireChannelInactive()
    }

    /// The number of bytes of `buffer` up to and including the `CRLF CRLF` ending the head, if there.
    private func headEnd(in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { state.headEnd.scan($0) }
    }

    private func startTimer(_ context: ChannelHandlerContext) {
        state.timersStarted += 1
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        state.timer = context.eventLoop.scheduleTask(in: headTimeout) {
            let (handler, context) = loopBound.value
            handler.state.timer = nil
            guard handler.state.awaitingHead, handler.state.headBytes > 0 else { return }
            handler.refuse(context, status: "408 Request Timeout", description: "The request head was not sent in time.")
        }
    }

    /// Answers with a short JSON error (unless another response is still being written) and
    /// closes. The close lingers: the answer goes out, the sending side closes, and whatever the
    /// client is still sending is read and dropped for a moment, so that the client reads the
    /// answer instead of a connection reset.
    private func refuse(_ context: ChannelHandlerContext, status: String, description: String) {
        state.awaitingHead = false
        state.discarding = true
        state.timer?.cancel()
        state.timer = nil
        guard context.channel.isActive else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .seconds(2)) { loopBound.value.close(promise: nil) }
        guard state.responsesPending == 0 else {
            context.close(promise: nil)
            return
        }
        let body = #"{"error":"invalid_request","error_description":"\#(description)"}"#
        let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head + body))).whenComplete { _ in
            loopBound.value.close(mode: .output, promise: nil)
        }
    }
}

/// The decoded half: learns where requests begin and end, so that the raw half counts each head
/// from its first byte, and knows when a response is still being written. It also counts the
/// server's requests in flight (`inFlight`), which the adaptive executor reads.
final class RequestBoundaryObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let state: RequestHeadState
    let inFlight: RequestsInFlight

    init(state: RequestHeadState, inFlight: RequestsInFlight = .shared) {
        self.state = state
        self.inFlight = inFlight
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            // The head is complete (also when it arrived in one read with the end of the previous
            // request, before the raw half knew a new head had begun).
            state.responsesPending += 1
            inFlight.started()
            state.awaitingHead = false
            state.timer?.cancel()
            state.timer = nil
        case .end:
            state.awaitingHead = true
            state.headBytes = 0
            state.headEnd.reset()
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), state.responsesPending > 0 {
            state.responsesPending -= 1
            inFlight.finished()
        }
        context.write(data, promise: promise)
    }

    /// Requests still unanswered when the connection closes are no longer in flight.
    func channelInactive(context: ChannelHandlerContext) {
        settleInFlight()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        settleInFlight()
    }

    private func settleInFlight() {
        inFlight.finished(state.responsesPending)
        state.responsesPending = 0
    }

    /// A request the HTTP parser refused gets a 4xx before the connection closes (an unknown
    /// method such as TRACK: 405; an oversized head: 431; anything else: 400), not a silent close.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parserError = error as? HTTPParserError, state.responsesPending == 0, context.channel.isActive {
            let (status, text): (HTTPResponse.Status, String) = switch parserError {
            case .invalidMethod: (.methodNotAllowed, "This method is not supported.")
            case .headerOverflow: (.init(code: 431), "The request head is too large.")
            default: (.badRequest, "The request is not valid HTTP/1.1.")
            }
            state.awaitingHead = false
            let body = ByteBuffer(string: #"{"error":"invalid_request","error_description":"\#(text)"}"#)
            let head = HTTPResponse(status: status, headerFields: [
                .contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close",
            ])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
            return
        }
        context.fireErrorCaught(error)
    }
}
