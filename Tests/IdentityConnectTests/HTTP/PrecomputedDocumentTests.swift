import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import IdentityApp
import Testing

/// Discovery and the JWKS answered on the event loop, before the router
/// (`PrecomputedDocumentHandler`, docs/benchmarks.md): the same answer as the router's, never
/// out of order on a pipelined connection, counted and dated like any other request.
@Suite("HTTP: precomputed documents below the router")
struct PrecomputedDocumentTests {
    /// The status line and headers of every response in `raw`, in order, with their bodies.
    static func responses(_ raw: String) -> [(head: String, body: String)] {
        var rest = Substring(raw)
        var found: [(String, String)] = []
        while let end = rest.range(of: "\r\n\r\n") {
            let head = String(rest[..<end.lowerBound])
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            let bodyStart = end.upperBound
            let bodyEnd = rest.index(bodyStart, offsetBy: length, limitedBy: rest.endIndex) ?? rest.endIndex
            found.append((head, String(rest[bodyStart..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return found
    }

    static func header(_ name: String, in head: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
    }

    @Test("pipelined behind a routed request, a document is answered after it, in order")
    func pipelinedInOrder() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient(network: true) { client in
            let port = try #require(client.port)
            // One write: the document's head arrives while /healthz is still a task in the
            // router. Answered at once, the JWKS would overtake the /healthz answer.
            let raw = try await RawHTTP.exchange(port: port,
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /.well-known/openid-configuration HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answers = Self.responses(raw)
            #expect(answers.count == 4, "\(raw.prefix(400))")
            guard answers.count == 4 else { return }
            #expect(answers.allSatisfy { $0.head.hasPrefix("HTTP/1.1 200") })
            #expect(!answers[0].body.contains("\"keys\"") && answers[1].body.contains("\"keys\""))
            #expect(!answers[2].body.contains("\"keys\"") && answers[3].body.contains("\"issuer\""))
        }
    }

    @Test("one request at a time: the router's answer byte for byte in body, ETag, caching, a Date and a request id")
    func sameAnswerAsTheRouter() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient(network: true) { client in
            let port = try #require(client.port)
            for (path, maxAge) in [("/.well-known/openid-configuration", 300), ("/.well-known/oauth-authorization-server", 300),
                                   ("/.well-known/jwks.json", 60)] {
                // Connection: close is honoured here too (the exchange ends when the server closes).
                let fast = try #require(Self.responses(try await RawHTTP.exchange(port: port,
                    "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\n", timeout: .seconds(20))).first)
                #expect(Self.header("Connection", in: fast.head) == "close")
                // With a query string the request goes through the router.
                let routed = try #require(Self.responses(try await RawHTTP.exchange(port: port,
                    "GET \(path)?via=router HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).first)
                #expect(fast.body == routed.body && !fast.body.isEmpty, "\(path)")
                for name in ["ETag", "Content-Type", "Cache-Control"] {
                    #expect(Self.header(name, in: fast.head) == Self.header(name, in: routed.head), "\(path) \(name)")
                }
                #expect(Self.header("Cache-Control", in: fast.head) == "public, max-age=\(maxAge)")
                #expect(Self.header("Content-Length", in: fast.head) == String(fast.body.utf8.count))
                // Hummingbird's request ids: a per-process random prefix in hex without leading
                // zeros (so 1 in 16 processes has a shorter one), then a 16-digit counter.
                let requestId = try #require(Self.header("X-Request-Id", in: fast.head))
                #expect((17...32).contains(requestId.count) && requestId.allSatisfy(\.isHexDigit), "\(requestId)")
                let date = try #require(Self.header("Date", in: fast.head))
                #expect(date.hasSuffix(" GMT") && date.count == 29, "\(date)")
            }
        }
    }

    @Test("If-None-Match naming the tag gets 304 without a body; HEAD and other methods stay the router's")
    func conditionalAndOtherMethods() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient(network: true) { client in
            let port = try #require(client.port)
            let etag = try #require(try await client.get("/.well-known/jwks.json").headers[.eTag])
            let raw = try await RawHTTP.exchange(port: port,
                "GET /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"old\", \(etag)\r\n\r\n"
                + "HEAD /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n"
                + "DELETE /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            let heads = raw.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
            #expect(heads == ["304", "200", "405"], "\(raw.prefix(600))")
            let notModified = try #require(Self.responses(raw).first)
            #expect(Self.header("ETag", in: notModified.head) == etag)
            #expect(Self.header("Content-Type", in: notModified.head) == nil)
            #expect(!raw.contains("\"keys\""))
        }
    }

    @Test("a request with a body is the router's; the one after it is answered in order")
    func bodiesAndConnectionHeaders() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient(network: true) { client in
            let port = try #require(client.port)
            let raw = try await RawHTTP.exchange(port: port,
                "GET /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answers = Self.responses(raw)
            #expect(answers.count == 2 && answers.allSatisfy { $0.head.hasPrefix("HTTP/1.1 200") && $0.body.contains("\"keys\"") },
                    "\(raw.prefix(400))")
        }
    }

    @Test("answers before the router are counted in /metrics under the document's route")
    func metrics() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient(network: true) { client in
            let port = try #require(client.port)
            _ = try await RawHTTP.exchange(port: port,
                "GET /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\n\r\nGET /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n",
                timeout: .seconds(2))
            let text = try await client.get("/metrics").text
            #expect(text.contains(#"idconnect_http_requests_total{route="/.well-known/jwks.json",method="GET",status="200"} 2"#),
                    "\(text.split(separator: "\n").filter { $0.contains("jwks") })")
        }
    }
}

@Suite("HTTP: Date header and the head-end scanner")
struct HTTPDateAndHeadScannerTests {
    @Test("IMF-fixdate as Foundation formats it, across centuries, leap days and the epoch")
    func dates() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        let fixed = [0, 59, 86_399, 86_400, 951_782_400, 951_868_799, 1_709_164_800, 4_107_542_400, 253_402_300_799]
        for seconds in fixed + (0..<2_000).map({ _ in Int.random(in: 0...4_102_444_800, using: &generator) }) {
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(HTTPDate.format(secondsSince1970: seconds) == expected, "\(seconds)")
        }
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    /// The reference: the first `CRLF CRLF` in everything sent so far.
    static func naiveEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[(index - 3)...index].elementsEqual([13, 10, 13, 10]) { return index + 1 }
        return nil
    }

    @Test("finds the end of the head wherever the reads split it, and nothing where there is none")
    func headEnds() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [13, 10, 65, 13, 10, 32]
        for _ in 0..<3_000 {
            let stream = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let expected = Self.naiveEnd(stream)
            var scanner = HeadEndScanner()
            var offset = 0
            var found: Int?
            while offset < stream.count, found == nil {
                let length = Int.random(in: 1...max(1, min(7, stream.count - offset)), using: &generator)
                let piece = Array(stream[offset..<offset + length])
                if let end = piece.withUnsafeBytes({ scanner.scan($0) }) { found = offset + end }
                offset += length
            }
            #expect(found == expected, "\(stream)")
        }
    }

    @Test("a new head after reset does not reuse the bytes before it")
    func reset() {
        var scanner = HeadEndScanner()
        #expect([UInt8]("GET / HTTP/1.1\r\n\r".utf8).withUnsafeBytes { scanner.scan($0) } == nil)
        scanner.reset()
        #expect([UInt8]("\n".utf8).withUnsafeBytes { scanner.scan($0) } == nil)
        #expect([UInt8]("X\r\n\r\n".utf8).withUnsafeBytes { scanner.scan($0) } == 5)
    }
}
