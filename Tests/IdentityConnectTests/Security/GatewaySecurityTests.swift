import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// docs/security.md, rules 3 and 15: what the data-link gateway lets through, in both directions.
@Suite("Security: data-link gateway headers and paths")
struct GatewaySecurityTests {
    /// The AuthLink fixture with one more mapped header on the environment's other auth service,
    /// so that a header name the caller's own token does not use is still the broker's.
    static func files(authLink: String, dataLink: String) -> [String: String] {
        var files = AuthLinkFixture.files(authLink: authLink, dataLink: dataLink)
        files["environments/authlink.yaml"] = files["environments/authlink.yaml"]!.replacingOccurrences(
            of: "provider: { type: custom, remoteService: \"\(authLink)/login\" }",
            with: "provider: { type: custom, remoteService: \"\(authLink)/login\", datalinkHeaderMapping: { department: X-Department } }")
        return files
    }

    @Test("the caller's copies of broker headers, credentials and proxy headers never reach the data link; one X-Forwarded-For does")
    func requestHeaders() async throws {
        let dataLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: dataLog)) { dataLink in
                let broker = try await TestBroker.make(files: Self.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient(network: true) { client in
                    // "expiring" has no email: the X-User-Email mapping yields no value for this token.
                    let access = try #require(try await AuthLinkFixture.signIn(client, "expiring").json["access_token"] as? String)
                    var headers: HTTPFields = [.authorization: "Bearer \(access)", .cookie: "idc_sso=secret"]
                    for (name, value) in [("X-User-Email", "ceo@example.org"), ("X-Department", "finance"), ("X-Auth-Key", "forged"),
                                          ("X-Kinvey-Auth", "forged"), ("X-Kinvey-Anything", "forged"), ("Forwarded", "for=1.2.3.4"),
                                          ("X-Forwarded-For", "1.2.3.4"), ("X-Forwarded-Host", "evil.example"), ("X-Real-IP", "1.2.3.4"),
                                          ("Keep-Alive", "timeout=5"), ("Proxy-Authorization", "Basic Zm9vOmJhcg=="), ("X-Custom", "kept"),
                                          ("X-Original-URL", "/admin"), ("X-Rewrite-URL", "/admin"), ("X-HTTP-Method-Override", "DELETE")] {
                        headers.append(HTTPField(name: HTTPField.Name(name)!, value: value))
                    }
                    let answer = try await client.execute(uri: "/datalink/crm/orders", method: .get, headers: headers)
                    #expect(answer.status == .ok)
                    let seen = try #require(dataLog.last).headers
                    for name in ["x-user-email", "x-department", "x-kinvey-anything", "forwarded", "x-forwarded-host", "x-real-ip",
                                 "x-api-secret", "keep-alive", "proxy-authorization", "cookie", "authorization",
                                 "x-original-url", "x-rewrite-url", "x-http-method-override"] {
                        #expect(seen[name] == nil, "\(name) reached the data link")
                    }
                    #expect(seen["x-auth-key"] == "crm-key-1")
                    #expect(seen["x-kinvey-auth"] == Data("tok-expiring".utf8).base64EncodedString())
                    #expect(seen["x-forwarded-for"] == "127.0.0.1")
                    #expect(seen["x-custom"] == "kept")
                    // A header the caller's Connection header names is hop-by-hop too (sent as
                    // typed: HTTP client libraries manage Connection themselves).
                    let raw = try await RawHTTP.exchange(port: try #require(client.port), """
                        GET /datalink/crm/hop HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(access)\r\n\
                        Connection: close, X-Api-Secret\r\nX-Api-Secret: hop\r\nTE: trailers\r\n\r\n
                        """)
                    #expect(raw.hasPrefix("HTTP/1.1 200"), "\(raw.prefix(80))")
                    #expect(dataLog.last?.path == "/api/hop")
                    #expect(dataLog.last?.headers["x-api-secret"] == nil)
                    #expect(dataLog.last?.headers["te"] == nil)
                }
            }
        }
    }

    @Test("the data link's Set-Cookie and hop-by-hop headers do not come back")
    func responseHeaders() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: CallLog())) { dataLink in
                let broker = try await TestBroker.make(files: Self.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient { client in
                    let access = try #require(try await AuthLinkFixture.signIn(client, "ok").json["access_token"] as? String)
                    let answer = try await client.get("/datalink/crm/cookie", headers: [.authorization: "Bearer \(access)"])
                    #expect(answer.status == .ok)
                    #expect(answer.headers[.setCookie] == nil)
                    #expect(answer.headers[HTTPField.Name("X-Backend-Hop")!] == nil)
                    #expect(answer.headers[HTTPField.Name("Keep-Alive")!] == nil)
                    #expect(answer.headers[HTTPField.Name("X-Backend")!] == "crm")
                }
            }
        }
    }

    @Test("dot segments, encoded / and \\, NUL and broken escapes in the path are refused with 400; nothing is forwarded")
    func paths() async throws {
        let dataLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: dataLog)) { dataLink in
                let broker = try await TestBroker.make(files: Self.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient(network: true) { client in
                    let access = try #require(try await AuthLinkFixture.signIn(client, "ok").json["access_token"] as? String)
                    let port = try #require(client.port)
                    for path in ["/datalink/crm/../admin", "/datalink/crm/./x", "/datalink/crm/%2e%2e/admin", "/datalink/crm/a/%2E%2e",
                                 "/datalink/crm/a%2fb", "/datalink/crm/a%2Fb", "/datalink/crm/a%5cb", "/datalink/crm/a\\b",
                                 "/datalink/crm/a%00b", "/datalink/crm/a%zz", "/datalink/crm/..;/admin",
                                 "/datalink/crm/%2e%2e;x=1/admin", "/datalink/crm/%252e%252e/admin"] {
                        let answer = try await RawHTTP.exchange(port: port, """
                            GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(access)\r\nConnection: close\r\n\r\n
                            """)
                        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(path): \(answer.prefix(80))")
                    }
                    #expect(dataLog.count == 0)
                    let fine = try await RawHTTP.exchange(port: port, """
                        GET /datalink/crm/a%20b/c?x=%2e%2e HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(access)\r\nConnection: close\r\n\r\n
                        """)
                    #expect(fine.hasPrefix("HTTP/1.1 200"), "\(fine.prefix(200))")
                    #expect(dataLog.last?.path == "/api/a%20b/c")
                    #expect(dataLog.last?.query == "x=%2e%2e")
                }
            }
        }
    }
}
