import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Serves `base` (the guarded HTTP/1.1 channel) over TLS with the context `source` holds when
/// the connection is accepted, so a reloaded certificate reaches new connections only. The
/// request-head guards of `base` then see the decrypted bytes; the handshake itself must finish
/// within `handshakeTimeout` (the head timeout), so a client that opens connections and never
/// completes a handshake holds each for seconds, not until the idle timeout.
struct BrokerTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let source: TLSContextSource
    let handshakeTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let context = source.current
        let timeout = handshakeTimeout
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
            try channel.pipeline.syncOperations.addHandler(HandshakeDeadline(timeout: timeout))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes a connection whose TLS handshake has not completed within `timeout` of its accept;
/// stands aside once the handshake is done.
final class HandshakeDeadline: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            loopBound.value.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            deadline?.cancel()
            deadline = nil
        }
        context.fireUserInboundEventTriggered(event)
    }
}
