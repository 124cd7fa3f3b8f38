import AsyncHTTPClient
import EventLoopAffinity
import Foundation
import IdentityCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// HTTP calls from connectors to identity sources: bounded time, bounded answers, no redirects
/// followed, and transport problems turned into ``ConnectorFailure``
/// (docs/connectors/authlink.md, "Options"; docs/connectors/oauth2-oidc.md, "Options";
/// docs/connectors/saml-wrap.md, "Options": connect 5 s, total 15 s by default).
public struct UpstreamHTTP: Sendable {
    /// One client for every connector: connection pooling across auth services. Never shut down
    /// (it lives as long as the process). Its read timeout is the largest `options.timeout` a
    /// connector may configure (300 s): each call's own deadline (``timeout``) is what limits it,
    /// so a connector configured for 60 s really waits 60 s.
    public static let sharedClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .broker(readTimeout: .seconds(300)))

    public let client: HTTPClient
    /// Total time allowed for one call.
    public let timeout: TimeAmount
    /// Larger answers are refused as nonsense.
    public let maxResponseBytes: Int

    public init(client: HTTPClient = UpstreamHTTP.sharedClient, timeout: TimeAmount = .seconds(15), maxResponseBytes: Int = 1 << 20) {
        self.client = client
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// An answer that arrived in full.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: Data

        public var contentType: String { headers.first(name: "content-type")?.lowercased() ?? "" }
        public var json: JSONValue? { JSONValue(parsing: body) }
    }

    /// POSTs `body`; throws `.unavailable` for connection failures and timeouts, `.invalidResponse`
    /// for oversized answers.
    public func post(_ url: String, body: Data, contentType: String, headers: [(String, String)] = [],
                     what: String) async throws -> Answer {
        var fields = HTTPHeaders()
        fields.add(name: "Content-Type", value: contentType)
        fields.add(name: "Accept", value: "application/json")
        for (name, value) in headers { fields.add(name: name, value: value) }
        return try await execute(url, method: .POST, headers: fields, body: .bytes(body), what: what)
    }

    /// GETs `url` (discovery documents, JWKS, userinfo, SAML metadata) with the same limits as
    /// ``post(_:body:contentType:headers:what:)``; `accept` names the media types wanted.
    public func get(_ url: String, accept: String = "application/json", headers: [(String, String)] = [],
                    what: String) async throws -> Answer {
        var fields = HTTPHeaders()
        fields.add(name: "Accept", value: accept)
        for (name, value) in headers { fields.add(name: name, value: value) }
        return try await execute(url, method: .GET, headers: fields, body: nil, what: what)
    }

    /// The call, head and body, within `timeout`; the caller continues on its own event loop
    /// afterwards (`EventLoopAffinity`).
    ///
    /// This is AsyncHTTPClient's future-based API with its `ResponseAccumulator`: its deadline
    /// covers the whole answer and the body is gathered on the connection's event loop. The
    /// async API's deadline ends with the response head, so the body needed a deadline of its
    /// own (a task group racing a `Task.sleep`), which cost a sign-in two child tasks and a timer
    /// on Dispatch's threads. A cancelled caller cancels the request.
    private func execute(_ url: String, method: HTTPMethod, headers: HTTPHeaders, body: HTTPClient.Body?,
                         what: String) async throws -> Answer {
        try await EventLoopAffinity.returning {
            let task: HTTPClient.Task<HTTPClient.Response>
            do {
                let request = try RequestPrototypes.request(url, method: method, headers: headers, body: body)
                task = client.execute(request: request, delegate: ResponseAccumulator(request: request, maxBodySize: maxResponseBytes),
                                      deadline: .now() + timeout)
            } catch {
                throw ConnectorFailure(.unavailable, "The \(what) did not answer.", debug: "\(error)")
            }
            let response: HTTPClient.Response
            do {
                response = try await withTaskCancellationHandler {
                    try await task.futureResult.get()
                } onCancel: {
                    task.cancel()
                }
            } catch is ResponseAccumulator.ResponseTooBigError {
                throw ConnectorFailure(.invalidResponse, "The \(what) sent an oversized answer.")
            } catch {
                throw ConnectorFailure(.unavailable, "The \(what) did not answer.", debug: "\(error)")
            }
            return Answer(status: Int(response.status.code), headers: response.headers,
                          body: response.body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data())
        }
    }

    public func postJSON(_ url: String, _ object: [String: String], headers: [(String, String)] = [],
                         what: String) async throws -> Answer {
        // Written directly (sorted keys) rather than through JSONSerialization: every AuthLink
        // sign-in posts one.
        let body = Data(JSONValue.serialize(object: object.mapValues { .string($0) }))
        return try await post(url, body: body, contentType: "application/json; charset=utf-8", headers: headers, what: what)
    }

    public func postForm(_ url: String, _ fields: [(String, String)], headers: [(String, String)] = [],
                         what: String) async throws -> Answer {
        let body = fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        return try await post(url, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded", headers: headers, what: what)
    }

    public static func formEncode(_ text: String) -> String {
        PercentEncoding.unreserved(text)
    }
}
