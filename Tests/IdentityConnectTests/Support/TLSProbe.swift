import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A TLS client for raw HTTP bytes: what AsyncHTTPClient does not show (the server certificate's
/// serial) or would never send (slow or oversized heads). It trusts only the test's CA and checks
/// the server name `localhost`.
struct TLSProbe {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let context: NIOSSLContext

    init(trusting caPEM: String, maximumVersion: TLSVersion? = nil) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(caPEM.utf8)))
        if let maximumVersion {
            configuration.maximumTLSVersion = maximumVersion
            configuration.minimumTLSVersion = .tlsv1
        }
        context = try NIOSSLContext(configuration: configuration)
    }

    /// One open TLS connection; its bytes arrive in `received`.
    final class Connection: @unchecked Sendable {
        let channel: Channel
        private let collector: Collector

        fileprivate init(channel: Channel, collector: Collector) {
            self.channel = channel
            self.collector = collector
        }

        /// The serial number of the certificate the server presented on this connection.
        func peerSerial() async throws -> [UInt8] {
            guard let certificate = try await channel.nioSSL_peerCertificate().get() else {
                throw Failure(description: "no peer certificate")
            }
            return certificate.serialNumber
        }

        func send(_ text: String) async throws {
            try await channel.writeAndFlush(ByteBuffer(string: text)).get()
        }

        /// Waits until what arrived contains `marker` (or the connection closed, or `timeout`).
        func received(containing marker: String? = nil, timeout: Duration = .seconds(15)) async -> String {
            let end = ContinuousClock.now + timeout
            while ContinuousClock.now < end {
                let (text, closed) = collector.snapshot()
                if closed || (marker.map { text.contains($0) } ?? false) { return text }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return collector.snapshot().text
        }

        var isClosed: Bool { collector.snapshot().closed }

        func close() async { try? await channel.close().get() }
    }

    /// Connects to 127.0.0.1:`port` and completes the handshake (or throws its error).
    func connect(port: Int) async throws -> Connection {
        let collector = Collector()
        let context = context
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: "localhost")
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await collector.handshake.futureResult(on: channel.eventLoop).get()
        return Connection(channel: channel, collector: collector)
    }

    /// Sends `chunks` (with `pause` between them) on a new connection and returns everything the
    /// server answers until it closes or `timeout` passes.
    func exchange(port: Int, _ chunks: [String], pause: Duration = .zero, timeout: Duration = .seconds(15)) async throws -> String {
        let connection = try await connect(port: port)
        defer { Task { await connection.close() } }
        for (index, chunk) in chunks.enumerated() {
            if index > 0 { try await Task.sleep(for: pause) }
            // The server may answer (408, 431) and close before everything is sent: read what came.
            do { try await connection.send(chunk) } catch { break }
        }
        return await connection.received(timeout: timeout)
    }
}

/// Collects a connection's decrypted bytes and notices its handshake and close.
private final class Collector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let lock = NSLock()
    private var text = ""
    private var closed = false
    let handshake = HandshakeSignal()

    func snapshot() -> (text: String, closed: Bool) { lock.withLock { (text, closed) } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        lock.withLock { text += String(buffer: buffer) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { handshake.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        handshake.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        lock.withLock { closed = true }
        handshake.fail(TLSProbe.Failure(description: "closed before the handshake completed"))
        context.fireChannelInactive()
    }
}

/// The outcome of a handshake, settled once.
final class HandshakeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Void, Error>?
    private var waiters: [EventLoopPromise<Void>] = []

    func succeed() { settle(.success(())) }
    func fail(_ error: Error) { settle(.failure(error)) }

    private func settle(_ outcome: Result<Void, Error>) {
        let pending: [EventLoopPromise<Void>] = lock.withLock {
            guard result == nil else { return [] }
            result = outcome
            defer { waiters = [] }
            return waiters
        }
        pending.forEach { $0.completeWith(outcome) }
    }

    func futureResult(on loop: EventLoop) -> EventLoopFuture<Void> {
        let promise = loop.makePromise(of: Void.self)
        let settled: Result<Void, Error>? = lock.withLock {
            if result == nil { waiters.append(promise) }
            return result
        }
        if let settled { promise.completeWith(settled) }
        return promise.futureResult
    }
}
