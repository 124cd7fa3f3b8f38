import AsyncHTTPClient
import ConnectorHTTP
import EventLoopAffinity
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import NIOCore
import NIOHTTP1
import OAuthEngine

/// The data-link gateway `ANY /datalink/{name}/{path...}` (docs/protocol.md, "Data-link gateway"):
/// validates the caller's token, then streams the call to the data link with the mapped headers,
/// `X-Auth-Key` and `X-Kinvey-Request-Id`, and passes the answer back as it is: a small sized
/// one read whole and sent in one piece (`WholeAnswer`), any other streamed.
struct DataLinkController {
    let services: AppServices
    let clients: DataLinkClients
    /// Request bodies larger than this are refused (counted while streaming).
    static let maxBodyBytes = 32 << 20

    /// Routes the common methods; every other method reaches the gateway through
    /// `DataLinkAnyMethodMiddleware` (the router matches methods one by one).
    func register(on router: Router<AppRequestContext>) {
        for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .head, .options] {
            router.on("datalink/:name/**", method: method) { request, context in
                try await forward(request, context)
            }
            router.on("datalink/:name", method: method) { request, context in
                try await forward(request, context)
            }
        }
    }

    /// The client's errors that mean "not in time" (504): no answer, no connection, or no free
    /// connection to the backend (all 128 busy, `HTTPClient.Configuration.connectionsPerHost`).
    static let timeouts: [HTTPClientError] = [.deadlineExceeded, .readTimeout, .connectTimeout, .getConnectionFromPoolTimeout]

    /// Methods never forwarded: TRACE would echo the headers the gateway adds (`X-Auth-Key`, the
    /// upstream token) back to the caller; CONNECT opens tunnels, not requests.
    static let refusedMethods: Set<HTTPRequest.Method> = [.trace, .connect]

    func forward(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard !Self.refusedMethods.contains(request.method) else {
            throw OAuthError(.invalidRequest, "The gateway does not forward \(request.method.rawValue) requests.", status: 405)
        }
        let name: String, rest: [Substring]
        do {
            (name, rest) = try DataLinkPath.parse(request.uri.path)
        } catch {
            throw OAuthError.invalidRequest("The path may not contain dot segments, encoded '/' or '\\', or NUL.")
        }
        guard let presented = try PresentedAccessToken.fromHeader(request, issuer: services.issuer) else {
            throw OAuthError.invalidToken("Send the access token as Authorization: Bearer (or DPoP with a proof).")
        }
        let target = try await presented.answering {
            try await services.engine.validation.dataLinkTarget(name: name, accessToken: presented.token,
                                                                presented: presented.presentation)
        }
        let length = request.headers.value(.contentLength).flatMap(Int.init)
        if let length, length > Self.maxBodyBytes {
            throw OAuthError.gatewayBodyTooLarge
        }
        var upstream = HTTPClientRequest(url: Self.url(target.link.url, rest: rest, query: request.uri.query))
        upstream.method = HTTPMethod(rawValue: request.method.rawValue)
        let mapped = target.mappedHeaderNames.union(target.headers.keys.map { $0.lowercased() })
        for (name, value) in DataLinkHeaders.forwardable(request.headers, mapped: mapped) {
            upstream.headers.add(name: name, value: value)
        }
        for (header, value) in target.headers { upstream.headers.replaceOrAdd(name: header, value: value) }
        if let authKey = target.link.authKey { upstream.headers.replaceOrAdd(name: "X-Auth-Key", value: authKey) }
        upstream.headers.replaceOrAdd(name: "X-Kinvey-Request-Id", value: context.id)
        if let address = services.clientAddress(request, context) { upstream.headers.add(name: "X-Forwarded-For", value: address) }
        // GET and HEAD usually have no body, but when one comes (search APIs) it goes along too.
        let hasBody = (length ?? 0) > 0 || request.headers.value(.transferEncoding) != nil
        if hasBody || (request.method != .get && request.method != .head) {
            upstream.body = .stream(LimitedBody(base: request.body, limit: Self.maxBodyBytes),
                                    length: length.map { .known(Int64($0)) } ?? .unknown)
        }
        let answer: HTTPClientResponse
        do {
            // Back on this connection's event loop afterwards, whichever loop the backend's
            // connection lives on (`EventLoopAffinity`).
            answer = try await EventLoopAffinity.returning {
                try await clients.client(timeoutSeconds: target.link.timeoutSeconds)
                    .execute(upstream, timeout: .seconds(Int64(target.link.timeoutSeconds)))
            }
        } catch let error as HTTPClientError where Self.timeouts.contains(error) {
            throw OAuthError.dataLinkTimedOut(name)
        } catch is BodyTooLarge {
            throw OAuthError.gatewayBodyTooLarge
        } catch {
            context.logger.warning("data link unreachable", metadata: ["dataLink": "\(name)", "error": "\(error)"])
            throw OAuthError(.temporarilyUnavailable, "The data link '\(name)' is unreachable.", status: 502)
        }
        let headers = DataLinkHeaders.returnable(answer.headers)
        let answerLength = answer.headers.first(name: "content-length").flatMap(Int.init)
        let body = answer.body
        if let answerLength, WholeAnswer.applies(to: request.method, status: answer.status.code, length: answerLength) {
            let whole = try await WholeAnswer.read(body, length: answerLength, link: name, logger: context.logger)
            return Response(status: .init(code: Int(answer.status.code)), headers: headers, body: ResponseBody(byteBuffer: whole))
        }
        return Response(status: .init(code: Int(answer.status.code)), headers: headers,
                        body: ResponseBody(contentLength: answerLength) { writer in
                            try await EventLoopAffinity.returning {
                                for try await chunk in body { try await writer.write(chunk) }
                            }
                            try await writer.finish(nil)
                        })
    }

    /// The data link URL with the caller's remaining path and query.
    static func url(_ base: URL, rest: [Substring], query: String?) -> String {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        if !rest.isEmpty { text += "/" + rest.joined(separator: "/") }
        if let query, !query.isEmpty { text += "?" + query }
        return text
    }
}

struct BodyTooLarge: Error {}

/// Passes a request body through, failing once more than `limit` bytes went by.
struct LimitedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var inner: Base.AsyncIterator
        var seen = 0
        let limit: Int

        @concurrent mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await inner.next() else { return nil }
            seen += chunk.readableBytes
            if seen > limit { throw BodyTooLarge() }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inner: base.makeAsyncIterator(), limit: limit) }
}

extension OAuthError {
    /// 413: the caller's body is larger than ``DataLinkController/maxBodyBytes``.
    static let gatewayBodyTooLarge = OAuthError(.invalidRequest, "The request body is too large for the gateway.", status: 413)

    /// 504: the data link did not start its answer, or went silent in it, within its `timeout`.
    static func dataLinkTimedOut(_ link: String) -> OAuthError {
        OAuthError(.temporarilyUnavailable, "The data link '\(link)' did not answer in time.", status: 504)
    }
}
