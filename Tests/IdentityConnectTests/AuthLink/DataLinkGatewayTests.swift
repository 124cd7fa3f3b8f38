import AsyncHTTPClient
import ConnectorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityCore
import NIOCore
import Testing

@Suite("Data-link gateway and TTL-driven AuthLink refresh (docs/protocol.md, \"Sessions and upstream tokens\" and \"Data-link gateway\")")
struct DataLinkGatewayTests {
    @Test("sign in via AuthLink → gateway → data link sees X-Kinvey-Auth; time passes → exactly one upstream refresh, new token forwarded")
    func endToEnd() async throws {
        let authLog = CallLog(), dataLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: authLog)) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: dataLog)) { dataLink in
                let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient { client in
                    let access = try #require(try await AuthLinkFixture.signIn(client, "expiring").json["access_token"] as? String)
                    let bearer: HTTPFields = [.authorization: "Bearer \(access)", .contentType: "text/plain",
                                              HTTPField.Name("X-Kinvey-Auth")!: "forged", .cookie: "idc_sso=secret"]
                    let first = try await client.execute(uri: "/datalink/crm/orders/7?expand=lines&x=1", method: .post, headers: bearer,
                                                         body: ByteBuffer(string: "payload-1"))
                    #expect(first.status == .ok)
                    #expect(String(buffer: first.body) == "echo:payload-1")
                    #expect(first.headers[HTTPField.Name("X-Backend")!] == "crm")
                    let seen = try #require(dataLog.last)
                    #expect(seen.method == "POST")
                    #expect(seen.path == "/api/orders/7")
                    #expect(seen.query == "expand=lines&x=1")
                    #expect(seen.headers["x-kinvey-auth"] == Data("tok-expiring".utf8).base64EncodedString())
                    #expect(seen.headers["x-auth-key"] == "crm-key-1")
                    #expect(seen.headers["x-kinvey-request-id"]?.isEmpty == false)
                    #expect(seen.headers["authorization"] == nil)
                    #expect(seen.headers["cookie"] == nil)
                    #expect(seen.headers["content-type"] == "text/plain")

                    broker.clock.advance(100)   // the upstream token expires within 30 s: refresh first
                    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                        for index in 0..<20 {
                            group.addTask {
                                try await client.execute(uri: "/datalink/crm/items/\(index)", method: .get,
                                                         headers: [.authorization: "Bearer \(access)"]).status.code
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(statuses.allSatisfy { $0 == 200 })
                    #expect(authLog.count(path: "/refresh") == 1)
                    let refreshCall = try #require(authLog.all.last { $0.path == "/refresh" })
                    let refreshBody = try #require(try JSONSerialization.jsonObject(with: refreshCall.body) as? [String: String])
                    #expect(refreshBody == ["refresh_token": "rt-1", "grant_type": "refresh_token"])
                    #expect(dataLog.last?.headers["x-kinvey-auth"] == Data("refreshed-1".utf8).base64EncodedString())
                    // Status and a large body stream back unchanged.
                    let big = String(repeating: "z", count: 3 << 20)
                    let created = try await client.execute(uri: "/datalink/crm/created", method: .put, headers: [.authorization: "Bearer \(access)"],
                                                           body: ByteBuffer(string: big))
                    #expect(created.status == .created)
                    #expect(created.body.readableBytes == big.utf8.count + 5)
                }
            }
        }
    }

    @Test("ANY method: PROPFIND and REPORT go through with their bodies, a GET body too; TRACE and CONNECT are refused")
    func anyMethod() async throws {
        let dataLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: dataLog)) { dataLink in
                let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient { client in
                    let access = try #require(try await AuthLinkFixture.signIn(client, "expiring").json["access_token"] as? String)
                    let auth: HTTPFields = [.authorization: "Bearer \(access)"]
                    for method in ["PROPFIND", "REPORT"] {
                        let answer = try await client.execute(uri: "/datalink/crm/dav/calendar?depth=1", method: HTTPRequest.Method(method)!,
                                                              headers: auth, body: ByteBuffer(string: "<\(method)/>"))
                        #expect(answer.status == .ok)
                        #expect(String(buffer: answer.body) == "echo:<\(method)/>")
                        #expect(dataLog.last?.method == method && dataLog.last?.path == "/api/dav/calendar")
                        #expect(dataLog.last?.headers["x-auth-key"] == "crm-key-1")
                    }
                    let search = try await client.execute(uri: "/datalink/crm/search", method: .get, headers: auth,
                                                          body: ByteBuffer(string: #"{"q":"x"}"#))
                    #expect(String(buffer: search.body) == #"echo:{"q":"x"}"#)
                    let calls = dataLog.all.count
                    let trace = try await client.execute(uri: "/datalink/crm/anything", method: .trace, headers: auth)
                    #expect(trace.status == .methodNotAllowed)
                    #expect(dataLog.all.count == calls)
                    // Unknown paths outside the gateway stay 404 for any method.
                    #expect(try await client.execute(uri: "/elsewhere", method: HTTPRequest.Method("PROPFIND")!, headers: auth).status == .notFound)
                    // Without a token, an unrouted method is still a 401, not a forward.
                    #expect(try await client.execute(uri: "/datalink/crm/dav", method: HTTPRequest.Method("PROPFIND")!).status == .unauthorized)
                }
            }
        }
    }

    @Test("gateway errors: 401 without or with a bad token, 404 unknown link, 403 unbound auth service, 502 down, 504 slow")
    func errors() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: CallLog())) { dataLink in
                let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient { client in
                    let access = try #require(try await AuthLinkFixture.signIn(client, "ok").json["access_token"] as? String)
                    let auth: HTTPFields = [.authorization: "Bearer \(access)"]
                    #expect(try await client.get("/datalink/crm/x").status == .unauthorized)
                    #expect(try await client.get("/datalink/crm/x", headers: [.authorization: "Bearer nope"]).status == .unauthorized)
                    #expect(try await client.get("/datalink/nope/x", headers: auth).status == .notFound)
                    #expect(try await client.get("/datalink/bound/x", headers: auth).status == .forbidden)
                    let down = try await client.get("/datalink/down/x", headers: auth)
                    #expect(down.status == .badGateway)
                    #expect(down.json["error"] as? String == "temporarily_unavailable")
                    let slow = try await client.get("/datalink/crm/slow", headers: auth)
                    #expect(slow.status == .gatewayTimeout)
                    #expect(slow.json["error"] is String)
                }
            }
        }
    }

    @Test("sixteen callers at once reach one data link together: the gateway is not held to AsyncHTTPClient's 8 connections per host")
    func concurrentCallsToOneLink() async throws {
        let callers = 16
        #expect(HTTPClient.Configuration.broker().connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit >= callers)
        let gathering = Gathering(size: callers)
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: CallLog(), gathering: gathering)) { dataLink in
                let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: dataLink),
                                                       registry: AuthLinkFixture.registry)
                try await broker.withClient(network: true) { client in
                    let access = try #require(try await AuthLinkFixture.signIn(client, "ok").json["access_token"] as? String)
                    let port = try #require(client.port)
                    // A client of the test's own, so that all sixteen calls reach the broker at once.
                    var configuration = HTTPClient.Configuration()
                    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = callers
                    let caller = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                    let statuses: [UInt]
                    do {
                        statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                            for _ in 0..<callers {
                                group.addTask {
                                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/datalink/crowd/together")
                                    request.headers.add(name: "Authorization", value: "Bearer \(access)")
                                    let answer = try await caller.execute(request, timeout: .seconds(60))
                                    return answer.status.code
                                }
                            }
                            return try await group.reduce(into: []) { $0.append($1) }
                        }
                    } catch {
                        try await caller.shutdown()
                        throw error
                    }
                    try await caller.shutdown()
                    // With 8 connections the first eight waited in vain for the rest (503), which queued for a connection.
                    #expect(statuses == Array(repeating: 200, count: callers))
                }
            }
        }
    }

    @Test("refresh edge cases: the token sent as refresh_token, refusal ends the session, failure keeps it")
    func refreshCases() async throws {
        let authLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: authLog)) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let selfRefresh = try #require(try await AuthLinkFixture.signIn(client, "self-refresh").json["access_token"] as? String)
                let refuse = try await AuthLinkFixture.signIn(client, "refuse-refresh").json
                let fail = try #require(try await AuthLinkFixture.signIn(client, "fail-refresh").json["access_token"] as? String)
                broker.clock.advance(100)
                #expect(try await Flows.validate(client, selfRefresh).status == .ok)
                let sent = try #require(authLog.all.last { $0.path == "/refresh" })
                #expect((try JSONSerialization.jsonObject(with: sent.body) as? [String: String])?["refresh_token"] == "tok-self")

                let refused = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"),
                    ("refresh_token", try #require(refuse["refresh_token"] as? String))], headers: basicAuth(AuthLinkFixture.appKey, AuthLinkFixture.secret))
                #expect(refused.json["error"] as? String == "invalid_grant")
                #expect(refused.json["error_description"] as? String == "Session revoked.")
                #expect(try await Flows.validate(client, try #require(refuse["access_token"] as? String)).status == .unauthorized)

                #expect(try await Flows.validate(client, fail).status == .serviceUnavailable)
                #expect(try await Flows.validate(client, fail).status == .serviceUnavailable)
            }
        }
    }
}
