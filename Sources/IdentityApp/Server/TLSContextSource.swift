import IdentityConfig
import NIOConcurrencyHelpers
import NIOSSL

/// The TLS context new connections are served with (`server.tls`, docs/operations.md, "TLS").
///
/// Each accepted connection reads the current context once, under a lock, when its pipeline is
/// set up; a SIGHUP reload builds a complete new context first and then swaps the reference. A
/// connection keeps the context it started with until it closes, so a swap never drops or
/// changes an open connection, and no connection sees a half-built context.
public final class TLSContextSource: Sendable {
    private let state: NIOLockedValueBox<(context: NIOSSLContext, settings: TLSSettings)>

    /// Builds the context for `settings`; throws a message naming the `server.tls` key at fault.
    public init(_ settings: TLSSettings) throws {
        state = NIOLockedValueBox((try Self.makeContext(settings), settings))
    }

    /// The context a connection accepted now gets.
    public var current: NIOSSLContext { state.withLockedValue { $0.context } }

    /// The settings the current context was built from.
    public var settings: TLSSettings { state.withLockedValue { $0.settings } }

    /// Serves `settings` to connections accepted from now on. Returns false (and keeps the
    /// current context) when they are the ones already served; throws, keeping it too, when they
    /// cannot be used.
    @discardableResult
    public func replace(with settings: TLSSettings) throws -> Bool {
        if state.withLockedValue({ $0.settings == settings }) { return false }
        let context = try Self.makeContext(settings)
        state.withLockedValue { $0 = (context, settings) }
        return true
    }

    /// TLS 1.2 and 1.3, HTTP/1.1 offered through ALPN, no client certificates.
    static func makeContext(_ settings: TLSSettings) throws -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(Array(settings.certificateChain.utf8))
        } catch {
            throw BootstrapError("\(settings.certificateSource.keyPath): the certificate chain cannot be loaded: \(error)")
        }
        guard !chain.isEmpty else {
            throw BootstrapError("\(settings.certificateSource.keyPath): no certificate in the PEM text")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: Array(settings.privateKey.utf8), format: .pem)
        } catch {
            throw BootstrapError("\(settings.keySource.keyPath): the private key cannot be loaded: \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw BootstrapError("\(settings.keySource.keyPath): the key and certificate cannot serve TLS together: \(error)")
        }
    }
}
