import AsyncHTTPClient
import ConnectorHTTP
import NIOCore
import Synchronization

/// The gateway's HTTP clients, one per data-link `timeout` in use (docs/protocol.md, "Data-link
/// gateway").
///
/// A link's `timeout` bounds both the wait for the answer's head (the call's deadline) and every
/// silence while its body comes: AsyncHTTPClient sets its idle read timeout per client, not per
/// call, so links with different timeouts use different clients. Without it, a data link that sent
/// a head and then nothing held the caller and one of its 128 connections for as long as it kept
/// the connection open. Each client is `HTTPClient.Configuration.broker` (no redirects, no
/// decompression, connect within 5 s) and lives as long as the process: there are as many as
/// distinct timeouts were ever configured, a handful.
final class DataLinkClients: Sendable {
    private let clients = Mutex<[Int: HTTPClient]>([:])

    /// The process's clients.
    static let shared = DataLinkClients()

    /// The client whose reads wait at most `timeoutSeconds` between two pieces of an answer.
    func client(timeoutSeconds: Int) -> HTTPClient {
        clients.withLock { clients in
            if let client = clients[timeoutSeconds] { return client }
            let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                    configuration: .broker(readTimeout: .seconds(Int64(timeoutSeconds))))
            clients[timeoutSeconds] = client
            return client
        }
    }
}
