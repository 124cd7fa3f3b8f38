import EventLoopAffinity
import HTTPTypes
@testable import IdentityApp
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// The count of requests in flight that `IDCONNECT_EXECUTOR=adaptive` decides by, as the
/// connection pipeline keeps it (`RequestBoundaryObserver`): from a request's head to the end of
/// its answer, each pipelined request on its own, and nothing left counted when a connection
/// closes early. A count that only grew would pin the executor to its loaded mode for good; one
/// that fell short would run a loaded server one request at a time.
@Suite("HTTP: requests in flight")
struct RequestsInFlightTests {
    static func connection() -> (EmbeddedChannel, RequestsInFlight) {
        let counter = RequestsInFlight()
        let channel = EmbeddedChannel(handler: RequestBoundaryObserver(state: RequestHeadState(), inFlight: counter))
        return (channel, counter)
    }

    static let head = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/healthz"))

    @Test("a request counts from its head to the end of its answer, pipelined ones each")
    func fromHeadToAnswer() throws {
        let (channel, counter) = Self.connection()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(counter.current == 1)
        #expect(!counter.several)
        try channel.writeInbound(Self.head)
        #expect(counter.current == 2)
        #expect(counter.several)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        #expect(counter.current == 2)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(counter.current == 1)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(counter.current == 0)
        // An answer end with no request behind it does not take the count below zero.
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(counter.current == 0)
        _ = try channel.finish()
        #expect(counter.current == 0)
    }

    @Test("a connection that closes before its answers leaves nothing counted")
    func closedEarly() throws {
        let (channel, counter) = Self.connection()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(Self.head)
        #expect(counter.current == 2)
        _ = try channel.finish(acceptAlreadyClosed: true)
        #expect(counter.current == 0)
    }

    @Test("the counter: finishing none changes nothing, several means more than one")
    func counter() {
        let counter = RequestsInFlight()
        counter.started()
        counter.finished(0)
        #expect(counter.current == 1 && !counter.several)
        counter.started()
        #expect(counter.several)
        counter.finished(2)
        #expect(counter.current == 0)
    }
}
