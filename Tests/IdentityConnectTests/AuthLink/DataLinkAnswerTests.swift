import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// How the gateway passes a data link's answer back: small sized answers are read whole and sent in
/// one piece (`DataLinkController.answersWhole`), everything else streams; either way the caller
/// gets exactly what the data link sent, or a clear 502 when the data link broke off.
@Suite("Data-link gateway: request bodies, and answers whole, streamed, body-less and cut short")
struct DataLinkAnswerTests {
    struct BrokeOff: Error {}

    /// How long the stalling answers stay silent: far past the `crm` link's 2 s timeout, so that a
    /// gateway that waited for the data link instead of cutting it off would take this long.
    static let stallSeconds: Int64 = 30
    /// The caller hears of the cut within this: the link's timeout with ample room for a loaded
    /// CI machine (a bound of 5 s was once missed by 0.45 s there), and well short of the stall.
    static let cutWithin = Duration.seconds(20)

    /// A data link whose answer depends on the last path segment.
    static func backend() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("api/small") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "small answer")))
        }
        router.get("api/large") { _, _ in
            // Larger than the whole-answer limit, sized, written in 8 KiB pieces.
            let piece = ByteBuffer(repeating: UInt8(ascii: "L"), count: 8 << 10)
            return Response(status: .ok, body: ResponseBody(contentLength: 25 * piece.readableBytes) { writer in
                for _ in 0..<25 { try await writer.write(piece) }
                try await writer.finish(nil)
            })
        }
        router.get("api/unsized") { _, _ in
            Response(status: .ok, body: ResponseBody { writer in
                for part in ["one,", "two,", "three"] { try await writer.write(ByteBuffer(string: part)) }
                try await writer.finish(nil)
            })
        }
        router.head("api/head") { _, _ in
            Response(status: .ok, headers: [.contentLength: "1234", .contentType: "application/pdf"])
        }
        router.post("api/echo") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            return Response(status: .ok, headers: [HTTPField.Name("X-Received")!: String(body.readableBytes)],
                            body: .init(byteBuffer: body))
        }
        router.get("api/none") { _, _ in Response(status: .noContent) }
        router.get("api/cut") { _, _ in
            // Promises 1,000 bytes, sends 10, then drops the connection.
            Response(status: .ok, body: ResponseBody(contentLength: 1000) { writer in
                try await writer.write(ByteBuffer(string: "0123456789"))
                throw BrokeOff()
            })
        }
        router.get("api/stall") { _, _ in
            // Promises 100 bytes, sends 10, then says nothing for far longer than the link's 2 s
            // timeout (a gateway that waited for it would answer after `stallSeconds`).
            Response(status: .ok, body: ResponseBody(contentLength: 100) { writer in
                try await writer.write(ByteBuffer(string: "0123456789"))
                try await Task.sleep(for: .seconds(Self.stallSeconds))
                try await writer.write(ByteBuffer(repeating: 0x2E, count: 90))
                try await writer.finish(nil)
            })
        }
        router.get("api/stall-large") { _, _ in
            // A streamed answer (larger than the whole-answer limit) that stops halfway for longer
            // than the link's timeout.
            let half = ByteBuffer(repeating: UInt8(ascii: "S"), count: 100 << 10)
            return Response(status: .ok, body: ResponseBody(contentLength: 2 * half.readableBytes) { writer in
                try await writer.write(half)
                try await Task.sleep(for: .seconds(Self.stallSeconds))
                try await writer.write(half)
                try await writer.finish(nil)
            })
        }
        return router
    }

    @Test("small, large, unsized and 204 answers arrive as sent, with their lengths; HEAD keeps the data link's Content-Length")
    func answersAsSent() async throws {
        try await Self.withGateway { client, auth in
            let small = try await client.get("/datalink/crm/small", headers: auth)
            #expect(small.status == .ok)
            #expect(String(buffer: small.body) == "small answer")
            #expect(small.headers[.contentLength] == "12")
            #expect(small.headers[.contentType] == "text/plain")

            let large = try await client.get("/datalink/crm/large", headers: auth)
            #expect(large.status == .ok)
            #expect(large.body.readableBytes == 25 * (8 << 10))
            #expect(large.body.readableBytesView.allSatisfy { $0 == UInt8(ascii: "L") })
            #expect(large.headers[.contentLength] == String(25 * (8 << 10)))

            let unsized = try await client.get("/datalink/crm/unsized", headers: auth)
            #expect(unsized.status == .ok)
            #expect(String(buffer: unsized.body) == "one,two,three")

            let head = try await client.execute(uri: "/datalink/crm/head", method: .head, headers: auth)
            #expect(head.status == .ok)
            #expect(head.headers[.contentLength] == "1234")
            #expect(head.body.readableBytes == 0)

            let none = try await client.get("/datalink/crm/none", headers: auth)
            #expect(none.status == .noContent)
            #expect(none.body.readableBytes == 0)
        }
    }

    @Test("request bodies reach the data link intact: small, large (200 KiB) and chunked")
    func requestBodies() async throws {
        try await Self.withGateway { client, auth in
            let small = ByteBuffer(string: "{\"q\":\"small\"}")
            var large = ByteBuffer()
            for index in 0..<(200 << 10) { large.writeInteger(UInt8(truncatingIfNeeded: index)) }
            for body in [small, large] {
                let answer = try await client.execute(uri: "/datalink/crm/echo", method: .post, headers: auth, body: body)
                #expect(answer.status == .ok)
                #expect(answer.headers[HTTPField.Name("X-Received")!] == String(body.readableBytes))
                #expect(answer.body == body)
            }
            var chunked = auth
            chunked[.transferEncoding] = "chunked"
            let unsized = try await client.execute(uri: "/datalink/crm/echo", method: .post, headers: chunked, body: small)
            #expect(unsized.status == .ok)
            #expect(unsized.body == small)
        }
    }

    /// Regression: a small answer cut short used to reach the caller as a 200 whose body ended early
    /// (the head was already sent when the data link broke off); now the caller gets a 502.
    @Test("a data link that breaks off a small answer gives the caller a 502 with an error body, not a truncated 200")
    func answerCutShort() async throws {
        try await Self.withGateway { client, auth in
            let cut = try await client.get("/datalink/crm/cut", headers: auth)
            #expect(cut.status == .badGateway)
            #expect(cut.json["error"] as? String == "temporarily_unavailable")
            #expect((cut.json["error_description"] as? String)?.contains("broke off") == true)
            // The gateway is fine afterwards.
            #expect(try await client.get("/datalink/crm/small", headers: auth).status == .ok)
        }
    }

    /// Regression: a data link that sent the head of a small answer and then stalled held the caller
    /// past the link's `timeout`; now a silence longer than the timeout is a 504.
    @Test("a data link that stalls in the middle of a small answer gives the caller a 504 when the link's timeout ends")
    func answerStalls() async throws {
        try await Self.withGateway { client, auth in
            let started = ContinuousClock.now
            let stalled = try await client.get("/datalink/crm/stall", headers: auth)
            #expect(stalled.status == .gatewayTimeout)
            #expect(stalled.json["error"] as? String == "temporarily_unavailable")
            #expect(ContinuousClock.now - started < Self.cutWithin)
        }
    }

    /// Regression: a streamed answer whose data link fell silent kept the caller's request (and one
    /// of the gateway's connections to the data link) open until the data link went on; now a
    /// silence longer than the link's `timeout` ends it.
    @Test("a streamed answer that stalls for longer than the link's timeout is cut off instead of holding the caller")
    func streamStalls() async throws {
        try await Self.withGateway { client, auth in
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) {
                let answer = try await client.get("/datalink/crm/stall-large", headers: auth)
                // A client that does not notice the cut would at least see a short body.
                if answer.body.readableBytes < 200 << 10 { throw BrokeOff() }
            }
            // The caller's connection ends with the cut answer: the test client cannot be reused.
            #expect(ContinuousClock.now - started < Self.cutWithin)
        }
    }

    /// Runs `body` with a live broker whose `crm` data link is ``backend()`` and a signed-in user's
    /// `Authorization` header.
    static func withGateway(_ body: @escaping @Sendable (any TestClientProtocol, HTTPFields) async throws -> Void) async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            try await TestHTTPServer.with(backend()) { dataLink in
                let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient { client in
                    let access = try #require(try await AuthLinkFixture.signIn(client, "ok").json["access_token"] as? String)
                    try await body(client, [.authorization: "Bearer \(access)"])
                }
            }
        }
    }
}
