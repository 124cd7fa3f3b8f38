import HTTPTypes
@testable import IdentityApp
import NIOCore
import NIOEmbedded
import Testing

/// The raw half of the request-head limits (`RequestHeadGuard`) on an embedded channel, where time
/// only moves when the test moves it: the head clock starts with a head that is still incomplete
/// after a read, stops when the head is complete, and answers 408 when it runs out.
@Suite("HTTP: request-head timer")
struct RequestHeadGuardTests {
    static func connection(timeout: TimeAmount = .seconds(10)) throws -> (EmbeddedChannel, RequestHeadState) {
        let state = RequestHeadState()
        let channel = EmbeddedChannel(handler: RequestHeadGuard(state: state, headTimeout: timeout, maxHeadBytes: 16_384))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, state)
    }

    @Test("a head that arrives whole in one read starts no timer")
    func wholeHead() throws {
        let (channel, state) = try Self.connection()
        defer { _ = try? channel.finish() }
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(state.timersStarted == 0)
        #expect(state.timer == nil && !state.awaitingHead)
        #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
    }

    @Test("a head split across reads is timed from the first and the timer stops when it is complete",
          arguments: [("GET /healthz HTTP/1.1\r\n", "Host: x\r\n\r\n"), ("GET /healthz HTTP/1.1\r\nHost: x\r\n\r", "\n")])
    func splitHead(first: String, rest: String) throws {
        let (channel, state) = try Self.connection()
        defer { _ = try? channel.finish() }
        try channel.writeInbound(ByteBuffer(string: first))
        #expect(state.timer != nil && state.timersStarted == 1)
        try channel.writeInbound(ByteBuffer(string: rest))
        #expect(state.timer == nil && !state.awaitingHead)
        (channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: .seconds(11))
        #expect(channel.isActive)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }

    @Test("a head still incomplete when the timer runs out gets 408")
    func slowHead() throws {
        let (channel, _) = try Self.connection(timeout: .seconds(2))
        defer { _ = try? channel.finish() }
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHo"))
        (channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: .seconds(3))
        let answer = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: answer).hasPrefix("HTTP/1.1 408"))
    }
}

/// The header reads and writes the hot routes use instead of HTTPTypes' subscript must give what
/// the subscript gives: one field's value, several joined, nothing for none.
@Suite("HTTP: header lookups")
struct HTTPFieldsLookupTests {
    @Test("value(_:) is the subscript's answer for none, one and several fields")
    func sameAsSubscript() {
        var fields: HTTPFields = [.contentType: "application/json", .accept: "a"]
        #expect(fields.value(.authorization) == nil)
        #expect(fields.value(.contentType) == "application/json")
        fields.append(HTTPField(name: .accept, value: "b"))
        #expect(fields.value(.accept) == fields[.accept])
        #expect(fields.value(.accept) == "a, b")
        fields.append(HTTPField(name: .cookie, value: "x=1"))
        fields.append(HTTPField(name: .cookie, value: "y=2"))
        #expect(fields.value(.cookie) == "x=1; y=2")
    }

    @Test("set(_:to:) adds a missing field and replaces every copy of a present one")
    func setReplaces() {
        var fields: HTTPFields = [.contentType: "text/plain"]
        fields.set(.requestId, to: "one")
        #expect(fields[values: .requestId] == ["one"])
        fields.append(HTTPField(name: .requestId, value: "from the backend"))
        fields.set(.requestId, to: "two")
        #expect(fields[values: .requestId] == ["two"])
        #expect(fields.count == 2)
        fields.set(.cookie, to: "a=1; b=2")
        #expect(fields[values: .cookie] == ["a=1", "b=2"])
    }
}
