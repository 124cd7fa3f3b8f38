import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityCore
import Testing

/// `server.trustedProxies`: behind a reverse proxy, address throttling counts the client the
/// proxy saw, not the proxy; a client's own X-Forwarded-For is never believed.
@Suite("Client address through trusted proxies")
struct TrustedProxyTests {
    @Test("address blocks: IPv4, IPv6, bare addresses, mapped IPv4; junk refused")
    func ranges() throws {
        let ten = try #require(IPAddressRange("10.0.0.0/8"))
        #expect(ten.contains("10.200.3.4") && !ten.contains("11.0.0.1") && !ten.contains("::1") && !ten.contains("junk"))
        #expect(ten.contains("::ffff:10.1.2.3"))
        let host = try #require(IPAddressRange("127.0.0.1"))
        #expect(host.contains("127.0.0.1") && !host.contains("127.0.0.2"))
        let six = try #require(IPAddressRange("fd00::/8"))
        #expect(six.contains("fd12:3456::1") && !six.contains("fe80::1") && !six.contains("10.0.0.1"))
        #expect(try #require(IPAddressRange("0.0.0.0/0")).contains("203.0.113.9"))
        #expect(try #require(IPAddressRange("10.1.2.3/31")).contains("10.1.2.2"))
        for bad in ["", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0/8", "::1/129", "example.org", "10.0.0.1/8/8", "10.0.0.0/"] {
            #expect(IPAddressRange(bad) == nil, "\(bad) parsed")
        }
    }

    @Test("server.trustedProxies: a value that is no address or block is a config problem naming it")
    func configProblem() throws {
        let problems = try ConfigLoaderTests.problems([
            "server.yaml": "server:\n  trustedProxies: [ 10.0.0.0/8, \"10.0.0.0/40\", proxy.internal ]\n",
            "x.yaml": "environments:\n  - appKey: kid_x\n    authServices:\n\(ConfigLoaderTests.service())\n",
        ])
        let text = problems.map(\.description).joined(separator: "\n")
        #expect(problems.count == 2, "\(text)")
        #expect(text.contains("10.0.0.0/40") && text.contains("proxy.internal") && text.contains("trustedProxies"))
    }

    @Test("the first untrusted hop from the right is the client; forged or junk hops never are")
    func resolution() throws {
        let trusted = [try #require(IPAddressRange("10.0.0.0/8")), try #require(IPAddressRange("::1"))]
        func resolve(_ peer: String?, _ headers: [String]) -> String? {
            ClientAddress.resolve(peer: peer, forwardedFor: headers, trusted: trusted)
        }
        #expect(resolve("203.0.113.7", ["1.2.3.4"]) == "203.0.113.7")              // not from a proxy: header ignored
        #expect(resolve("10.0.0.5", ["198.51.100.1"]) == "198.51.100.1")
        #expect(resolve("10.0.0.5", ["6.6.6.6, 198.51.100.1, 10.0.0.9"]) == "198.51.100.1")  // left of it is the client's word
        #expect(resolve("10.0.0.5", ["6.6.6.6", "198.51.100.1"]) == "198.51.100.1")   // several header lines
        #expect(resolve("10.0.0.5", ["198.51.100.1, not-an-ip"]) == "10.0.0.5")        // junk stops at the last trusted hop
        #expect(resolve("10.0.0.5", ["10.0.0.7, 10.0.0.6"]) == "10.0.0.7")           // only proxies: the farthest one
        #expect(resolve("10.0.0.5", []) == "10.0.0.5")
        #expect(resolve("::1", ["2001:db8::5"]) == "2001:db8::5")
        #expect(ClientAddress.resolve(peer: "10.0.0.5", forwardedFor: ["1.2.3.4"], trusted: []) == "10.0.0.5")
        #expect(resolve(nil, ["1.2.3.4"]) == nil)
    }

    @Test("behind a trusted proxy, 50 failures throttle that client's address only; untrusted peers cannot pick an address")
    func throttlingBehindProxy() async throws {
        var files = TestBroker.defaultConfig()
        files["server.yaml"] = files["server.yaml"]!.replacingOccurrences(
            of: "server:\n", with: "server:\n  trustedProxies: [ 127.0.0.1, \"::1\" ]\n")
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient(network: true) { client in
            func attempt(_ user: String, _ password: String, from address: String) async throws -> TestResponse {
                var headers = basicAuth(TestBroker.appKey, TestBroker.appSecret)
                headers[.forwardedForHeader] = address
                return try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", user), ("password", password)],
                                                 headers: headers)
            }
            for index in 0..<50 { _ = try await attempt("guess\(index)", "wrong", from: "203.0.113.9") }
            #expect(try await attempt("bob", "bobpw", from: "203.0.113.9").status == .tooManyRequests)
            // Another client behind the same proxy is not held back.
            #expect(try await attempt("bob", "bobpw", from: "198.51.100.4").status == .ok)
        }
        // Without trustedProxies the header is ignored: everyone is the proxy's address.
        let plain = try await TestBroker.make()
        try await plain.withClient(network: true) { client in
            for index in 0..<50 {
                var headers = basicAuth(TestBroker.appKey, TestBroker.appSecret)
                headers[.forwardedForHeader] = "203.0.113.\(index)"
                _ = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "guess\(index)"), ("password", "wrong")],
                                              headers: headers)
            }
            var headers = basicAuth(TestBroker.appKey, TestBroker.appSecret)
            headers[.forwardedForHeader] = "198.51.100.4"
            let answer = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "bob"), ("password", "bobpw")],
                                                   headers: headers)
            #expect(answer.status == .tooManyRequests)
        }
    }
}

extension HTTPField.Name {
    static let forwardedForHeader = HTTPField.Name("X-Forwarded-For")!
}
