import AsyncHTTPClient
import EventLoopAffinity
import HTTPTypes
import IdentityCore
import Logging
import NIOCore

/// A data link's small answer, read whole before the gateway answers (docs/protocol.md,
/// "Data-link gateway").
///
/// Streamed, an answer leaves as a head and then its body: two writes, two packets for the
/// caller to read. Read whole first, head and body leave in one write; the second write had cost
/// the gateway about a tenth of its CPU per call under load. Only for small answers whose length
/// is known, so memory stays bounded; the rest stream. Reading whole also means a data link that
/// breaks off is a clean 502 for the caller instead of a 200 whose body ends early.
enum WholeAnswer {
    /// Answers up to this size (by their `Content-Length`) are read whole.
    static let maxBytes = 64 << 10

    /// Whether an answer is read whole: a sized body of at most ``maxBytes``, not the answer to a
    /// HEAD request or of a status without a body (their `Content-Length` describes a body that is
    /// not there and must reach the caller as the data link sent it).
    static func applies(to method: HTTPRequest.Method, status: UInt, length: Int) -> Bool {
        method != .head && (0...maxBytes).contains(length) && status >= 200 && status != 204 && status != 304
    }

    /// Reads the `length` bytes of `body`. A data link that breaks off is a 502; one that stays
    /// silent longer than the link's `timeout` (the client's idle read timeout,
    /// ``DataLinkClients``) a 504.
    static func read(_ body: HTTPClientResponse.Body, length: Int, link: String, logger: Logger) async throws -> ByteBuffer {
        do {
            return try await EventLoopAffinity.returning { try await body.collect(upTo: length) }
        } catch let error as HTTPClientError where error == .readTimeout {
            throw OAuthError.dataLinkTimedOut(link)
        } catch {
            logger.warning("data link answer cut short", metadata: ["dataLink": "\(link)", "error": "\(error)"])
            throw OAuthError(.temporarilyUnavailable, "The data link '\(link)' broke off its answer.", status: 502)
        }
    }
}
