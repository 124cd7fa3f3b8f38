import AsyncHTTPClient
import NIOCore
import Tracing

extension HTTPClient.Configuration {
    /// How the broker's own HTTP clients call out (connectors, the data-link gateway): redirects
    /// are not followed, answers are not decompressed, a connection must be up within 5 s, and
    /// reads wait at most `readTimeout` (nil: no limit of the client's own; callers set deadlines).
    ///
    /// A span per call only once a tracer is installed (`InstrumentationSystem.bootstrap`), as
    /// for the server's requests: AsyncHTTPClient otherwise starts a span with the no-op tracer
    /// and fills in its attributes for nothing, about 1% of a sign-in's CPU
    /// (`scripts/profile.py login`).
    public static func broker(readTimeout: TimeAmount? = nil) -> Self {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: readTimeout), decompression: .disabled)
        if configuration.tracing.tracer is NoOpTracer {
            configuration.tracing.tracer = nil
        }
        return configuration
    }
}
