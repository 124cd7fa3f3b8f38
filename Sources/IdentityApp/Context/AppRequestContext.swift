import Hummingbird
import Logging
import NIOCore

/// The per-request context: Hummingbird's core storage plus the client's address.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer address of the connection (for throttling and logs).
    public let remoteAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// docs/protocol.md, "Requests": bodies over 1 MiB get 413.
    public var maxUploadSize: Int { 1 << 20 }
}
