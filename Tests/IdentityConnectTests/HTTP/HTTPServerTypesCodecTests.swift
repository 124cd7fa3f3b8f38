import HTTPTypes
@testable import IdentityApp
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

/// The request translation in front of the router (`HTTPServerTypesCodec`) against the general one
/// it replaces (swift-nio-extras' conversion): the same request for every target form and header
/// set, including the ones its origin-form fast path does not take.
@Suite("HTTP: request translation to the shared types")
struct HTTPServerTypesCodecTests {
    static func head(_ uri: String, method: HTTPMethod = .GET, headers: [(String, String)] = [("Host", "broker.test")]) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(headers))
    }

    /// The general conversion's answer, or nil when it throws.
    static func reference(_ head: HTTPRequestHead) -> HTTPRequest? {
        try? HTTPRequest(head, secure: false, splitCookie: false)
    }

    @Test("every request target becomes the path the general conversion gives it", arguments: [
        "/", "/oauth/validate", "/oauth/auth?client_id=a&redirect_uri=https%3A%2F%2Fapp.test%2Fcb", "/a/../b", "//evil.test/x",
        "/?", "/path#fragment", "/%zz", "/a?b=%E2%9C%93&c", "http://broker.test/oauth/token?x=1", "https://broker.test",
        "http://broker.test?only=query", "*", "broker.test:443", "",
    ])
    func sameTarget(uri: String) throws {
        let head = Self.head(uri)
        let translated = try HTTPServerTypesCodec.request(from: head)
        #expect(translated == Self.reference(head))
        if uri.hasPrefix("/") { #expect(translated.path == uri) }
    }

    @Test("the first Host header in any case is the authority; the others stay fields", arguments: [
        [("Host", "a.test")], [("HOST", "a.test"), ("Accept", "*/*")], [("accept", "*/*"), ("host", "a.test"), ("Host", "b.test")],
        [("Accept", "*/*")], [("Hosts", "a.test"), ("Hos", "b.test")], [("X-Forwarded-Host", "c.test"), ("hOsT", "a.test")],
        [("Cookie", "a=1; b=2"), ("Cookie", "c=3"), ("Host", "a.test")], [("Bad Name", "x"), ("Host", "a.test"), ("Ok", "")],
    ])
    func sameHeaders(headers: [(String, String)]) throws {
        let head = Self.head("/oauth/introspect", method: .POST, headers: headers)
        let translated = try HTTPServerTypesCodec.request(from: head)
        #expect(translated == Self.reference(head))
        #expect(translated.authority == headers.first { $0.0.lowercased() == "host" }?.1)
    }

    @Test("a method the shared types refuse is refused on both paths")
    func invalidMethod() {
        for uri in ["/x", "http://a.test/x"] {
            let head = Self.head(uri, method: .RAW(value: "NOT A METHOD"))
            #expect(throws: HTTP1TypeConversionError.invalidMethod) { try HTTPServerTypesCodec.request(from: head) }
            #expect(Self.reference(head) == nil)
        }
    }

    @Test("Host is recognised in any case and only as the whole name")
    func hostName() {
        for name in ["Host", "host", "HOST", "hOsT"] { #expect(HTTPServerTypesCodec.isHost(name)) }
        for name in ["Hos", "Hosts", "X-Host", "", "Hóst", "Ho\u{0}t"] { #expect(!HTTPServerTypesCodec.isHost(name)) }
    }

    @Test("on a channel: request parts in, response parts out, a refused head an error")
    func onAChannel() throws {
        let channel = EmbeddedChannel(handler: HTTPServerTypesCodec())
        defer { _ = try? channel.finish() }
        try channel.writeInbound(HTTPServerRequestPart.head(Self.head("/oauth/validate?x=1")))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "body")))
        try channel.writeInbound(HTTPServerRequestPart.end(HTTPHeaders([("X-Trailer", "t")])))
        guard case .head(let request) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no head")
            return
        }
        #expect(request.path == "/oauth/validate?x=1" && request.authority == "broker.test" && request.method == .get)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .body(ByteBuffer(string: "body")))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end([HTTPField.Name("X-Trailer")!: "t"]))

        var response = HTTPResponse(status: .ok)
        response.headerFields[.contentType] = "application/json"
        try channel.writeOutbound(HTTPResponsePart.head(response))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        guard case .head(let written) = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no response head")
            return
        }
        #expect(written.status == .ok && written.headers["Content-Type"] == ["application/json"])

        #expect(throws: HTTP1TypeConversionError.invalidMethod) {
            try channel.writeInbound(HTTPServerRequestPart.head(Self.head("/", method: .RAW(value: "NOT A METHOD"))))
        }
    }
}
