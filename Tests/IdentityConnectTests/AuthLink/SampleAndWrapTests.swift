import AuthLinkConnector
import ConnectorHTTP
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Runs the built `authlink-sample` binary (the AuthLink of
/// docs/connectors/authlink.md, "The sample AuthLink") on a free port.
enum SampleAuthLink {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func with<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let binary = root.appendingPathComponent(".build/debug/authlink-sample")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw SampleMissing(description: "\(binary.path) is missing: run `swift build` (scripts/test.sh does) before the tests")
        }
        let users = root.appendingPathComponent("Connectors/AuthLinkSample/users.json").path
        let (process, port, _) = try await ListeningChild.start("the sample AuthLink", spawn: { port in
            try ChildProcess.spawn(binary.path, ["--port", "\(port)", "--users", users], keepStderr: false)
        }, ready: { port in
            try? await UpstreamHTTP(timeout: .seconds(1)).postJSON("http://127.0.0.1:\(port)/login", [:], what: "sample")
        })
        defer { process.terminate() }
        return try await body("http://127.0.0.1:\(port)")
    }

    struct SampleMissing: Error, CustomStringConvertible { let description: String }
}

/// An OAuth WRAP v0.9 §5.1 server: form in, form out.
enum ScriptableWrap {
    static func router(log: CallLog) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("wrap") { request, _ in
            var request = request
            let body = Data(buffer: try await request.collectBody(upTo: 1 << 16))
            log.record(request, body: body)
            let fields = Dictionary(String(decoding: body, as: UTF8.self).split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { $1 })
            func form(_ status: HTTPResponse.Status, _ text: String) -> Response {
                Response(status: status, headers: [.contentType: "application/x-www-form-urlencoded"], body: .init(byteBuffer: ByteBuffer(string: text)))
            }
            if let refresh = fields["wrap_refresh_token"] {
                return refresh == "wrt-1" ? form(.ok, "wrap_access_token=wrap-2&wrap_access_token_expires_in=60") : form(.unauthorized, "")
            }
            guard fields["wrap_password"] == "pw" else { return form(.unauthorized, "") }
            if fields["wrap_name"] == "broken" { return form(.ok, "nothing=here") }
            return form(.ok, "wrap_access_token=wrap%2F1&wrap_access_token_expires_in=60&wrap_refresh_token=wrt-1")
        }
        return router
    }
}

@Suite("The sample AuthLink, authlink check, and saml-wrap")
struct SampleAndWrapTests {
    @Test("sign in through the sample AuthLink with the hosted page and the automated grant; refresh rotates upstream")
    func sample() async throws {
        try await SampleAuthLink.with { sample in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: sample, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                // The sample requires no X-Auth-Key, so a shared secret the broker sends is harmless.
                let location = try await Flows.browserLogin(client, clientId: AuthLinkFixture.appKey, username: "alice", password: "alicepw")
                let code = try #require(queryItems(location)["code"])
                let tokens = try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", code),
                    ("redirect_uri", TestBroker.redirect), ("client_id", AuthLinkFixture.appKey), ("code_verifier", Flows.verifier)]).json
                let access = try #require(tokens["access_token"] as? String)
                let view = try await Flows.validate(client, access).json
                #expect(view["id"] as? String == "alice")
                #expect(view["department"] as? String == "R&D")
                let upstream = String(decoding: Data(base64Encoded: try #require(view["client_token"] as? String))!, as: UTF8.self)
                #expect(upstream.hasPrefix("sample-"))
                broker.clock.advance(3_590)
                let after = try await Flows.validate(client, access).json
                #expect(after["client_token"] as? String != view["client_token"] as? String)
                let wrong = try await Flows.automatedLogin(client, clientId: AuthLinkFixture.appKey, username: "alice", password: "nope")
                #expect(queryItems(wrong)["error_description"] == "The username or password is incorrect.")
            }
        }
    }

    @Test("authlink check passes the sample and names every broken case of a bad AuthLink")
    func checker() async throws {
        try await SampleAuthLink.with { sample in
            let good = await AuthLinkChecker(loginURL: sample + "/login", refreshURL: sample + "/refresh").run(username: "alice", password: "alicepw")
            #expect(good.count == 6)
            #expect(good.filter { !$0.passed }.isEmpty)
        }
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { bad in
            let cases = await AuthLinkChecker(loginURL: bad + "/login", refreshURL: bad + "/refresh").run(username: "not-json", password: "pw")
            #expect(cases.first?.passed == false)
            #expect(cases.first?.detail.contains("contract violation") == true)
        }
    }

    @Test("saml-wrap: WRAP token becomes the upstream token, refresh via wrap_refresh_token, 401 is access_denied")
    func wrap() async throws {
        let log = CallLog()
        try await TestHTTPServer.with(ScriptableWrap.router(log: log)) { wrap in
            var files = TestBroker.defaultConfig()
            files["environments/wrap.yaml"] = """
            environments:
              - appKey: kid_wrap
                appSecret: wrap-secret-1234
                authServices:
                  - id: sts
                    redirectUri: [ "\(TestBroker.redirect)" ]
                    provider: { type: saml-wrap, remoteService: "\(wrap)/wrap", options: { scope: "http://crm.example.com/" } }
            """
            let broker = try await TestBroker.make(files: files, registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let auth = basicAuth("kid_wrap", "wrap-secret-1234")
                let tokens = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "dana"), ("password", "pw")], headers: auth).json
                let access = try #require(tokens["access_token"] as? String)
                #expect(try await Flows.validate(client, access).json["client_token"] as? String == Data("wrap/1".utf8).base64EncodedString())
                let sent = String(decoding: try #require(log.last).body, as: UTF8.self)
                #expect(sent.contains("wrap_name=dana") && sent.contains("wrap_password=pw") && sent.contains("wrap_scope=http%3A%2F%2Fcrm.example.com%2F"))
                broker.clock.advance(45)
                #expect(try await Flows.validate(client, access).json["client_token"] as? String == Data("wrap-2".utf8).base64EncodedString())
                let denied = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "dana"), ("password", "bad")], headers: auth)
                #expect(denied.json["error"] as? String == "access_denied")
                let broken = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "broken"), ("password", "pw")], headers: auth)
                #expect(broken.status == .badGateway)
            }
        }
    }
}
