import AsyncHTTPClient
@testable import ConnectorHTTP
import NIOHTTP1
import Testing

/// Connector calls reuse the parsed form of a URL they called before (`RequestPrototypes`): each
/// call still carries its own method, headers and body, and a URL AsyncHTTPClient refuses is
/// refused every time.
@Suite("Connector HTTP: parsed requests reused")
struct RequestPrototypesTests {
    @Test("a second call to a URL gets its own headers and body, and another method its own request")
    func ownHeadersAndBody() throws {
        let url = "http://127.0.0.1:9/prototype-\(UInt64.random(in: 0...UInt64.max))/login?x=1"
        let first = try RequestPrototypes.request(url, method: .POST, headers: ["A": "1"], body: .bytes(Array("one".utf8)))
        let second = try RequestPrototypes.request(url, method: .POST, headers: ["B": "2"], body: nil)
        #expect(first.url == second.url && second.url.absoluteString == url)
        #expect(second.headers["A"].isEmpty && second.headers["B"] == ["2"] && second.body == nil)
        #expect(first.headers["A"] == ["1"] && first.body != nil)
        let get = try RequestPrototypes.request(url, method: .GET, headers: [:], body: nil)
        #expect(get.method == .GET && second.method == .POST)
        #expect(second.host == "127.0.0.1" && second.port == 9 && second.url.query == "x=1")
    }

    @Test("a URL AsyncHTTPClient refuses is refused on every call")
    func refusedEveryTime() {
        for _ in 0..<2 {
            #expect(throws: (any Error).self) { try RequestPrototypes.request("ftp://127.0.0.1/x", method: .GET, headers: [:], body: nil) }
            #expect(throws: (any Error).self) { try RequestPrototypes.request("http:///nohost", method: .GET, headers: [:], body: nil) }
        }
    }
}
