import AsyncHTTPClient
import NIOCore
import Tracing

extension HTTPClient.Configuration {
    /// How the broker's own HTTP clients call out (connectors, the data-link gateway): redirects
    /// are not followed, answers are not decompressed, a connection must be up within 5 s, and
    /// reads wait at most `readTimeout` (nil: no limit of the client's own; callers set deadlines).
    ///
    /// Up to ``connectionsPerHost`` calls to one host run at once, each on a connection of its
    /// own that is kept for the next call; more wait for a free one.
    ///
    /// A span per call only once a tracer is installed (`InstrumentationSystem.bootstrap`), as
    /// for the server's requests: AsyncHTTPClient otherwise starts a span with the no-op tracer
    /// and fills in its attributes for nothing on every call.
    public static func broker(readTimeout: TimeAmount? = nil) -> Self {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: readTimeout), decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        if configuration.tracing.tracer is NoOpTracer {
            configuration.tracing.tracer = nil
        }
        return configuration
    }

    /// How many connections to one host (scheme, host and port) the broker's clients keep and use
    /// at once. AsyncHTTPClient's default of 8 made calls beyond the eighth wait for a free
    /// connection: a data link or identity source answering in 200 ms could then be reached at
    /// most 40 times a second through the broker, however many callers waited.
    public static let connectionsPerHost = 128
}
